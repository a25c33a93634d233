"""The same training script, with the precision chosen from the hardware it runs on.

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



def precision() -> dict[str, bool]:
    """bf16 only where the GPU runs it natively (compute capability 8.0+), fp16 on older GPUs, fp32 on CPU."""
    if not torch.cuda.is_available():
        return {"bf16": False, "fp16": False}
    # including_emulation=False: on a T4 (7.5) current torch reports bf16 as supported, but emulated (slow).
    native_bf16 = torch.cuda.is_bf16_supported(including_emulation=False)
    return {"bf16": native_bf16, "fp16": not native_bf16}


chosen = precision()
print(f"kb-measure bf16={int(chosen['bf16'])}")
args = TrainingArguments(
    output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=4,
    **chosen,
    report_to="none", save_strategy="no",
)
result = Trainer(model=model, args=args, train_dataset=train_data).train()
print(f"kb-measure train_steps={result.global_step}")
