# family: checkpoint-io
# set: runtime-43
# mode: pyc
# expect: Missing key|Unexpected key|state_dict
# note: python -c: the whole PeftModel's state dict (base_model.model. keys) torch.saved, then loaded strictly into the bare Llama
import torch, _tiny
from peft import LoraConfig, get_peft_model
peft_model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM"))
torch.save(peft_model.state_dict(), "/tmp/runtime43/full_peft.pt")
model = _tiny.llama()
model.load_state_dict(torch.load("/tmp/runtime43/full_peft.pt"))
