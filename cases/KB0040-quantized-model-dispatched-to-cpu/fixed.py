"""4-bit loading with device_map="auto" when the GPU has too little room left for the model.

The fix: give the model a GPU with room for all of it (free the GPU of the earlier model, or pick a
smaller model), so the map has no CPU modules. Here the same checkpoint loads with 2 GiB of room:
every module lands on the GPU.
"""

import tempfile

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Qwen2Config, Qwen2ForCausalLM

folder = tempfile.mkdtemp(prefix="kb0040-")
config = Qwen2Config(vocab_size=151936, hidden_size=896, intermediate_size=4864, num_hidden_layers=24,
                     num_attention_heads=14, num_key_value_heads=2, tie_word_embeddings=True)
torch.manual_seed(0)
Qwen2ForCausalLM(config).to(torch.bfloat16).save_pretrained(folder)

quantization = BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16)
model = AutoModelForCausalLM.from_pretrained(
    folder, quantization_config=quantization, device_map="auto",
    max_memory={0: "2GiB", "cpu": "16GiB"},  # the fix: room for the whole 4-bit model on the GPU
)
print(f"kb-measure cpu_modules={sum(1 for p in model.parameters() if p.device.type != 'cuda')}")  # tensors off the GPU
print(f"kb-measure gpu_gib={torch.cuda.memory_allocated() / 2**30:.2f}")
