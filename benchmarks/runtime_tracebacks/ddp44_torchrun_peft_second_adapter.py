# family: ddp-reducer
# set: runtime-44
# case: KB0026-ddp-unused-parameters
# mode: torchrun
# expect: reduction|unused|did not receive grad|find_unused_parameters
# note: torchrun, 2 gloo ranks: a PEFT model with a second LoRA adapter added and left trainable, Trainer with ddp_find_unused_parameters=False
import _tiny
from peft import LoraConfig, get_peft_model
from transformers import DataCollatorForLanguageModeling, Trainer

model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"]))
model.add_adapter("style", LoraConfig(r=4, target_modules=["k_proj"]))
for name, p in model.named_parameters():
    if "lora_" in name:
        p.requires_grad_(True)
tok = _tiny.tokenizer()
trainer = Trainer(model=model, args=_tiny.args(ddp_backend="gloo", ddp_find_unused_parameters=False),
                  train_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
