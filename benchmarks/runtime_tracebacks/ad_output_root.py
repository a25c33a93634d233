# family: adapter-config
# case: KB0046-adapter-loaded-from-output-root
# expect: adapter_config.json
# note: loading the adapter from the Trainer's output_dir root, the adapter itself is in checkpoint-N/
import os
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model

out = tempfile.mkdtemp()
peft_model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM"))
peft_model.save_pretrained(os.path.join(out, "checkpoint-500"))
base = _tiny.llama()
model = PeftModel.from_pretrained(base, out)
