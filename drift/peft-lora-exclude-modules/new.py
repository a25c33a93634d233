"""LoRA with exclude_modules, new in peft 0.14.0."""
from peft import LoraConfig, get_peft_model

from kb.fixtures import tiny

tok = tiny.tokenizer()
config = LoraConfig(r=4, lora_alpha=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM", exclude_modules=["k_proj"])
model = get_peft_model(tiny.causal_lm(tok), config)
print("kb-drift trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
