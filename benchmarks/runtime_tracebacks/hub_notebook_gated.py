# family: hub-access
# case: KB0018-gated-model-access-denied
# mode: ipython
# wave: 2
# expect: gated|Gated
# note: notebook; hf_hub_download of a gated repo's config, not logged in
import _hub
_hub.serve("gated401")
# %%
from huggingface_hub import hf_hub_download
# %%
path = hf_hub_download(repo_id="google/gemma-2-9b", filename="config.json")
