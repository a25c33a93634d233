"""A training script with bf16 hard-coded, run where there is no bf16-capable GPU (here: no GPU).

Tiny Llama from a config with random weights, token ids in memory: nothing is downloaded.
"""

import tempfile

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(
    vocab_size=64, hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, max_position_embeddings=64,
))
ids = torch.randint(3, 64, (8, 16))
train_data = [{"input_ids": row, "labels": row} for row in ids]

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=4,
    bf16=True,  # "the A100 settings": fine on Ampere or newer, not on this machine
    report_to="none", save_strategy="no",
)
result = Trainer(model=model, args=args, train_dataset=train_data).train()
print(f"kb-measure train_steps={result.global_step}")
