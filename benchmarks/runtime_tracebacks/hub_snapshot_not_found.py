# family: hub-access
# wave: 2
# expect: RepositoryNotFound|Repository Not Found
# note: snapshot_download of a repo id with a typo
import _hub
_hub.serve("notfound")
from huggingface_hub import snapshot_download

snapshot_download("unsloth/llama-3-8b-bnb-4bitt")
