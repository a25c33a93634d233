# family: hub-access
# set: runtime-43
# mode: pyc
# expect: offline|cached|connect|LocalEntryNotFound|OfflineModeIsEnabled
# note: python -c with HF_HUB_OFFLINE=1 (a compute node without internet): AutoTokenizer.from_pretrained of a repo never downloaded
from transformers import AutoTokenizer
tok = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
