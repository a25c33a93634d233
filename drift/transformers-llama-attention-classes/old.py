"""Picking the attention class from the table, as fsdp_qlora and others did for transformers <= 4.47."""
from transformers.models.llama.modeling_llama import LLAMA_ATTENTION_CLASSES

print("kb-drift built", LLAMA_ATTENTION_CLASSES["sdpa"].__name__)
