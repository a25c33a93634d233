"""A model file that subclasses the flash-attention class, as written for transformers <= 4.47."""
from transformers.models.llama.modeling_llama import LlamaFlashAttention2

print("kb-drift built", LlamaFlashAttention2.__name__)
