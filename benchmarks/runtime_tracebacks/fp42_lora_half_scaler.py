# family: fp16-gradients
# case: KB0028-fp16-trainable-params-grad-scaler
# set: runtime-42
# expect: unscale FP16 gradients
# note: a LoRA on a Llama loaded in float16 (adapters float16 too, autocast_adapter_dtype=False) stepped with a GradScaler
import torch
import _tiny
from peft import LoraConfig, get_peft_model

model = get_peft_model(_tiny.llama().half(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]),
                       autocast_adapter_dtype=False)
opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad])
scaler = torch.amp.GradScaler("cpu")
ids = torch.randint(4, 20, (2, 6))
loss = model(input_ids=ids, labels=ids).loss
scaler.scale(loss).backward()
scaler.step(opt)
