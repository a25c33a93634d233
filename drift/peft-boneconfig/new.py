"""The same adapter as MiSS, its successor."""
from peft import MissConfig, get_peft_model

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = get_peft_model(tiny.causal_lm(tok), MissConfig(r=4, target_modules=["q_proj", "v_proj"]))
print("kb-drift trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
