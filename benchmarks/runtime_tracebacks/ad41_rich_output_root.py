# family: adapter-config
# case: KB0046-adapter-loaded-from-output-root
# set: runtime-41
# expect: adapter_config.json
# note: rich's traceback handler installed; PeftModel.from_pretrained on the run's output root, which holds only checkpoint-2/
import os
import tempfile
from rich.traceback import install

install(width=110, show_locals=False)
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model

root = tempfile.mkdtemp(prefix="outputs-")
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"])).save_pretrained(os.path.join(root, "checkpoint-2"))
model = PeftModel.from_pretrained(_tiny.llama(), root)
