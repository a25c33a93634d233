"""FSDP fine-tuning with the Trainer, as in the incident's fsdp_train.py: FSDP's own activation
checkpointing in fsdp_config, plus gradient_checkpointing=True in the training arguments.

Launched with 2 processes (torchrun). Tiny Llama from a config with random weights, token ids in
memory: nothing is downloaded.
"""

import tempfile

import torch
from transformers import LlamaConfig, LlamaForCausalLM, Trainer, TrainingArguments

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(
    vocab_size=128, hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, max_position_embeddings=64,
))
ids = torch.randint(3, 128, (16, 32))
train_data = [{"input_ids": row, "labels": row} for row in ids]

args = TrainingArguments(
    output_dir=tempfile.mkdtemp(),
    max_steps=2,
    per_device_train_batch_size=2,
    bf16=True,
    fsdp="full_shard auto_wrap",
    fsdp_config={"transformer_layer_cls_to_wrap": ["LlamaDecoderLayer"], "activation_checkpointing": True},
    gradient_checkpointing=True,  # "to save memory", on top of FSDP's activation checkpointing
    report_to="none",
    save_strategy="no",
)
trainer = Trainer(model=model, args=args, train_dataset=train_data)
result = trainer.train()
if trainer.is_world_process_zero():
    print(f"kb-measure train_steps={result.global_step}")
