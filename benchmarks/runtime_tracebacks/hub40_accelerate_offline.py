# family: hub-access
# set: runtime-40
# mode: accelerate
# expect: offline|cache|couldn't connect|Cannot find
# note: accelerate launch, 2 processes on a cluster node with HF_HUB_OFFLINE=1; the tokenizer was never downloaded into this cache
import os
os.environ["HF_HUB_OFFLINE"] = "1"
from accelerate import Accelerator
from transformers import AutoTokenizer

acc = Accelerator(cpu=True)
tok = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B-Instruct")
