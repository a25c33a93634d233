# family: hub-access
# expect: offline|connect|cached
# note: HF_HUB_OFFLINE=1 and the model was never downloaded into this cache
import os
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_HOME"] = "/tmp/hf-empty-cache"
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("HuggingFaceTB/SmolLM2-135M")
