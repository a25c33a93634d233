# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# set: runtime-44
# expect: unscale FP16 gradients|Attempting to unscale
# note: a LoRA model loaded in float16 trained with torch.amp's GradScaler on CPU, the adapters created in float16 (autocast_adapter_dtype=False)
import torch
import _tiny
from peft import LoraConfig, get_peft_model

model = get_peft_model(_tiny.llama().half(), LoraConfig(r=4, target_modules=["q_proj"]), autocast_adapter_dtype=False)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-4)
scaler = torch.amp.GradScaler("cpu")
ids = torch.tensor([[1, 5, 6, 7, 2]])
loss = model(input_ids=ids, labels=ids).loss
scaler.scale(loss).backward()
scaler.unscale_(optimizer)
