"""4-bit loading with device_map="auto" when the GPU has too little room left for the model.

A Qwen2.5-0.5B-shaped checkpoint (random bf16 weights written from its config, loaded as users do)
is loaded in 4-bit with device_map="auto". max_memory stands in for a GPU that is already mostly
full (another model in the notebook, another process): accelerate's map puts the modules that do
not fit on the CPU, and the bitsandbytes quantizer refuses a map with CPU modules.
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
    max_memory={0: "300MiB", "cpu": "16GiB"},  # the room left on the GPU
)
print(f"kb-measure gpu_gib={torch.cuda.memory_allocated() / 2**30:.2f}")
