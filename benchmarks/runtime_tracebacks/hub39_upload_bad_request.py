# family: hub-access
# set: runtime-39
# wave: 1
# expect: 400|Bad request
# note: upload_folder of the trained adapter; the Hub answers 400 Bad Request
import os
import tempfile
import _hub
_hub.serve("badrequest")
from huggingface_hub import HfApi

folder = tempfile.mkdtemp()
open(os.path.join(folder, "adapter_config.json"), "w").write("{}")
HfApi(token="hf_" + "z" * 34).upload_folder(folder_path=folder, repo_id="someone/my-adapter")
