"""A LoRA recipe written for a GPT-NeoX/Falcon-style model, pointed at a Llama-architecture model.

The recipe's target_modules name the fused attention projection `query_key_value` (GPT-NeoX, Falcon,
BLOOM, ChatGLM); a Llama model has q_proj/k_proj/v_proj/o_proj instead. Tiny Llama from kb/fixtures,
random weights, nothing downloaded.
"""

from peft import LoraConfig, get_peft_model

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = tiny.causal_lm(tok)

lora_config = LoraConfig(
    r=8, lora_alpha=16, lora_dropout=0.05, task_type="CAUSAL_LM",
    target_modules=["query_key_value"],  # copied from a Falcon/GPT-NeoX recipe
)
model = get_peft_model(model, lora_config)
lora_layers = sum(1 for name, _ in model.named_modules() if name.endswith(".lora_A"))
print(f"kb-measure lora_layers={lora_layers}")
model.print_trainable_parameters()
