"""A Bone adapter, as peft 0.14-0.18 offered it."""
from peft import BoneConfig, get_peft_model

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = get_peft_model(tiny.causal_lm(tok), BoneConfig(r=4, target_modules=["q_proj", "v_proj"]))
print("kb-drift trainable", sum(p.numel() for p in model.parameters() if p.requires_grad))
