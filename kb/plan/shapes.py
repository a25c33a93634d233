"""A decoder-only model's shape: the sizes `kb plan` counts, from a config.json or a model id kb ships.

Only dimensions are read (no weights, no torch). The layout per architecture -- which linear layers a
decoder layer has, whether q/k/v or gate/up are fused, how many norms -- is what the memory arithmetic of
kb/plan/estimate.py needs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kb.knowledge.tables import read_table

SUPPORTED = ("llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "phi3")


class ShapeError(ValueError):
    """A config or model id kb plan cannot use; the message says why."""


@dataclass(frozen=True)
class Linear:
    """One linear layer of a decoder layer: its name (as in LoRA target_modules) and what feeds it."""

    name: str
    d_in: int
    d_out: int
    group: str  # modules that read the same input tensor: attn_in, o_in, mlp_in, down_in


@dataclass(frozen=True)
class ModelShape:
    name: str
    model_type: str
    vocab: int
    hidden: int
    intermediate: int
    layers: int
    heads: int
    kv_heads: int
    head_dim: int
    tied: bool
    qkv_bias: bool
    norms_per_layer: int
    qk_norm: bool
    fused: bool  # phi3: qkv_proj and gate_up_proj
    final_softcap: bool

    @property
    def q_dim(self) -> int:
        return self.heads * self.head_dim

    @property
    def kv_dim(self) -> int:
        return self.kv_heads * self.head_dim

    def linears(self) -> list[Linear]:
        h, i, q, kv = self.hidden, self.intermediate, self.q_dim, self.kv_dim
        if self.fused:
            return [Linear("qkv_proj", h, q + 2 * kv, "attn_in"), Linear("o_proj", q, h, "o_in"),
                    Linear("gate_up_proj", h, 2 * i, "mlp_in"), Linear("down_proj", i, h, "down_in")]
        return [Linear("q_proj", h, q, "attn_in"), Linear("k_proj", h, kv, "attn_in"), Linear("v_proj", h, kv, "attn_in"),
                Linear("o_proj", q, h, "o_in"), Linear("gate_proj", h, i, "mlp_in"), Linear("up_proj", h, i, "mlp_in"),
                Linear("down_proj", i, h, "down_in")]

    def layer_linear_params(self) -> int:
        return sum(m.d_in * m.d_out for m in self.linears())

    def layer_other_params(self) -> int:
        """Norm weights and biases of one decoder layer (never quantized)."""
        n = self.norms_per_layer * self.hidden
        if self.qk_norm:
            n += 2 * self.head_dim
        if self.qkv_bias:
            n += self.q_dim + 2 * self.kv_dim
        return n

    def embedding_params(self) -> int:
        return self.vocab * self.hidden

    def total_params(self) -> int:
        per_layer = self.layer_linear_params() + self.layer_other_params()
        return self.layers * per_layer + self.embedding_params() * (1 if self.tied else 2) + self.hidden


def known_models() -> dict[str, dict[str, Any]]:
    """tables/plan-models.toml: model id -> config.json fields."""
    return dict(read_table("plan-models"))


def from_config(cfg: dict[str, Any], name: str = "config") -> ModelShape:
    """A shape from config.json fields. Raises :class:`ShapeError` for an architecture kb plan has no layout for."""
    if "text_config" in cfg and "hidden_size" not in cfg:
        cfg = {**cfg["text_config"], "model_type": cfg["text_config"].get("model_type", cfg.get("model_type"))}
    mt = str(cfg.get("model_type", "")).lower()
    if mt not in SUPPORTED:
        raise ShapeError(f"{name}: model_type {mt or '(none)'!r} is not one kb plan knows ({', '.join(SUPPORTED)})")
    try:
        h, heads = int(cfg["hidden_size"]), int(cfg["num_attention_heads"])
        shape = ModelShape(
            name=name, model_type=mt, vocab=int(cfg["vocab_size"]), hidden=h,
            intermediate=int(cfg["intermediate_size"]), layers=int(cfg["num_hidden_layers"]), heads=heads,
            kv_heads=int(cfg.get("num_key_value_heads") or heads),
            head_dim=int(cfg.get("head_dim") or h // heads),
            tied=bool(cfg.get("tie_word_embeddings", mt in ("gemma", "gemma2"))),
            qkv_bias=mt == "qwen2" or bool(cfg.get("attention_bias", False)),
            norms_per_layer=4 if mt == "gemma2" else 2,
            qk_norm=mt == "qwen3", fused=mt == "phi3",
            final_softcap=bool(cfg.get("final_logit_softcapping", 30.0 if mt == "gemma2" else None)),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise ShapeError(f"{name}: config lacks or mangles a field kb plan needs ({exc})") from None
    return shape


def load_shape(model: str) -> ModelShape:
    """A model id from models.toml (or its hub id), or a path to a config.json (or a folder holding one)."""
    models = known_models()
    key = model.lower()
    for mid, cfg in models.items():
        if key in (mid, str(cfg.get("hub_id", "")).lower()):
            return from_config(cfg, mid)
    path = Path(model)
    if path.is_dir():
        path = path / "config.json"
    if path.is_file():
        try:
            cfg = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ShapeError(f"{path.name}: not a readable config.json ({exc})") from None
        if not isinstance(cfg, dict):
            raise ShapeError(f"{path.name}: expected a JSON object")
        return from_config(cfg, path.parent.name or path.name)
    raise ShapeError(f"unknown model {model!r}: give a config.json path or one of: {', '.join(models)}")
