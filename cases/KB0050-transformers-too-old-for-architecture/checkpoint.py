"""KB0050's checkpoint: a tiny Qwen3 model folder (config.json + random weights), written offline.

It is written with torch and safetensors alone, not with transformers, because the failing program runs a
transformers release that has no Qwen3 classes to build it with: the folder is what a user downloads from
the Hub (a config that names ``model_type = "qwen3"`` and its weights), at toy size.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import save_file

# Qwen3's config.json keys (transformers 4.51's Qwen3Config), small dimensions.
CONFIG = {
    "architectures": ["Qwen3ForCausalLM"],
    "model_type": "qwen3",
    "vocab_size": 512,
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_hidden_layers": 2,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "hidden_act": "silu",
    "max_position_embeddings": 256,
    "rms_norm_eps": 1e-6,
    "rope_theta": 1000000.0,
    "attention_bias": False,
    "use_sliding_window": False,
    "sliding_window": None,
    "max_window_layers": 2,
    "tie_word_embeddings": False,
    "bos_token_id": 1,
    "eos_token_id": 2,
    "torch_dtype": "float32",
    "transformers_version": "4.51.0",
}


def _tensors() -> dict[str, torch.Tensor]:
    """Every weight of Qwen3ForCausalLM at CONFIG's sizes (Qwen3 adds q_norm/k_norm to Qwen2's attention)."""
    gen = torch.Generator().manual_seed(0)
    h, i, v = CONFIG["hidden_size"], CONFIG["intermediate_size"], CONFIG["vocab_size"]
    d = CONFIG["head_dim"]
    q, kv = CONFIG["num_attention_heads"] * d, CONFIG["num_key_value_heads"] * d

    def w(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=gen) * 0.02

    out = {"model.embed_tokens.weight": w(v, h), "model.norm.weight": torch.ones(h), "lm_head.weight": w(v, h)}
    for n in range(CONFIG["num_hidden_layers"]):
        p = f"model.layers.{n}."
        out.update({
            p + "self_attn.q_proj.weight": w(q, h), p + "self_attn.k_proj.weight": w(kv, h),
            p + "self_attn.v_proj.weight": w(kv, h), p + "self_attn.o_proj.weight": w(h, q),
            p + "self_attn.q_norm.weight": torch.ones(d), p + "self_attn.k_norm.weight": torch.ones(d),
            p + "mlp.gate_proj.weight": w(i, h), p + "mlp.up_proj.weight": w(i, h), p + "mlp.down_proj.weight": w(h, i),
            p + "input_layernorm.weight": torch.ones(h), p + "post_attention_layernorm.weight": torch.ones(h),
        })
    return out


def write(folder: str = "qwen3-tiny") -> str:
    """The checkpoint folder (in the working directory), as ``from_pretrained`` reads it."""
    path = Path(folder)
    path.mkdir(exist_ok=True)
    (path / "config.json").write_text(json.dumps(CONFIG, indent=1))
    save_file(_tensors(), str(path / "model.safetensors"), metadata={"format": "pt"})
    return str(path)
