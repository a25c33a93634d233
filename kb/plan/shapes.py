"""A decoder-only model's shape: the sizes `kb plan` counts, from a config.json or a model id kb ships.

Only dimensions are read (no weights, no torch). The layout per architecture -- which linear layers a
decoder layer has, whether q/k/v or gate/up are fused, how many norms -- is what the memory arithmetic of
kb/plan/estimate.py needs.
"""

from __future__ import annotations


from kb.knowledge.tables import read_table
from kb.plan.checks import MAX_HEAD_DIM, MAX_HEADS, MAX_HIDDEN, MAX_INTERMEDIATE, MAX_LAYERS, MAX_VOCAB, whole
from kb.plan.files import InputFileError, read_json
from kb.plan.names import near, resolve
from kb.knowledge.values import Frozen

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

SUPPORTED = ("llama", "mistral", "qwen2", "qwen3", "gemma", "gemma2", "phi3")


class ShapeError(ValueError):
    """A config or model id kb plan cannot use; the message says why."""


class Linear(Frozen):
    """One linear layer of a decoder layer: its name (as in LoRA target_modules) and what feeds it."""

    name: str
    d_in: int
    d_out: int
    group: str  # modules that read the same input tensor: attn_in, o_in, mlp_in, down_in


class ModelShape(Frozen):
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
        """The linear layers of one decoder layer (a new list; the layers, immutable, are built once per shape: a
        plan's estimates ask ~50 times)."""
        built = self.__dict__.get("_linears")
        if built is None:
            h, i, q, kv = self.hidden, self.intermediate, self.q_dim, self.kv_dim
            if self.fused:
                built = (Linear("qkv_proj", h, q + 2 * kv, "attn_in"), Linear("o_proj", q, h, "o_in"),
                         Linear("gate_up_proj", h, 2 * i, "mlp_in"), Linear("down_proj", i, h, "down_in"))
            else:
                built = (Linear("q_proj", h, q, "attn_in"), Linear("k_proj", h, kv, "attn_in"),
                         Linear("v_proj", h, kv, "attn_in"), Linear("o_proj", q, h, "o_in"),
                         Linear("gate_proj", h, i, "mlp_in"), Linear("up_proj", h, i, "mlp_in"),
                         Linear("down_proj", i, h, "down_in"))
            object.__setattr__(self, "_linears", built)  # (not a field: eq, hash and repr read FIELDS only)
        return list(built)

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
    return {k: v for k, v in read_table("plan-models").items() if isinstance(v, dict)}


def _int_field(cfg: dict[str, Any], key: str, name: str, hi: int, default: Any = None) -> int:
    value = cfg.get(key, default)
    if value is None:
        raise ShapeError(f"{name}: config lacks {key}, which kb plan needs")
    return whole(value, f"{name}: {key}", 1, hi, ShapeError)


def _bool_field(cfg: dict[str, Any], key: str, name: str, default: bool) -> bool:
    value = cfg.get(key, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise ShapeError(f"{name}: {key} must be true or false, not {str(value)[:40]!r}")
    return value


def from_config(cfg: dict[str, Any], name: str = "config") -> ModelShape:
    """A shape from config.json fields, each checked (a whole number, positive, within physical bounds).
    Raises :class:`ShapeError` for an architecture kb plan has no layout for or a field it cannot use."""
    if not isinstance(cfg, dict):
        raise ShapeError(f"{name}: expected a JSON object of config.json fields")
    text_config = cfg.get("text_config")
    if isinstance(text_config, dict) and "hidden_size" not in cfg:
        cfg = {**text_config, "model_type": text_config.get("model_type", cfg.get("model_type"))}
    raw_type = cfg.get("model_type", "")
    mt = raw_type.lower() if isinstance(raw_type, str) else ""
    if mt not in SUPPORTED:
        shown = raw_type[:40] if isinstance(raw_type, str) else str(type(raw_type).__name__)
        raise ShapeError(f"{name}: model_type {shown or '(none)'!r} is not one kb plan knows ({', '.join(SUPPORTED)})")
    h = _int_field(cfg, "hidden_size", name, MAX_HIDDEN)
    heads = _int_field(cfg, "num_attention_heads", name, MAX_HEADS)
    kv_heads = _int_field(cfg, "num_key_value_heads", name, MAX_HEADS, heads) if cfg.get("num_key_value_heads") is not None else heads
    if kv_heads > heads or heads % kv_heads:
        raise ShapeError(f"{name}: num_key_value_heads ({kv_heads}) must divide num_attention_heads ({heads})")
    if cfg.get("head_dim") is not None:
        head_dim = _int_field(cfg, "head_dim", name, MAX_HEAD_DIM)
    elif h % heads:
        raise ShapeError(f"{name}: hidden_size ({h}) is not a multiple of num_attention_heads ({heads}) and no head_dim is given")
    else:
        head_dim = h // heads
    if heads * head_dim > 4 * MAX_HIDDEN:
        raise ShapeError(f"{name}: num_attention_heads x head_dim ({heads * head_dim:,}) is larger than any model's")
    softcap = cfg.get("final_logit_softcapping", 30.0 if mt == "gemma2" else None)
    if softcap is not None and (isinstance(softcap, bool) or not isinstance(softcap, (int, float))):
        raise ShapeError(f"{name}: final_logit_softcapping must be a number or null")
    return ModelShape(
        name=name, model_type=mt, vocab=_int_field(cfg, "vocab_size", name, MAX_VOCAB), hidden=h,
        intermediate=_int_field(cfg, "intermediate_size", name, MAX_INTERMEDIATE),
        layers=_int_field(cfg, "num_hidden_layers", name, MAX_LAYERS), heads=heads, kv_heads=kv_heads,
        head_dim=head_dim,
        tied=_bool_field(cfg, "tie_word_embeddings", name, mt in ("gemma", "gemma2")),
        qkv_bias=mt == "qwen2" or _bool_field(cfg, "attention_bias", name, False),
        norms_per_layer=4 if mt == "gemma2" else 2,
        qk_norm=mt == "qwen3", fused=mt == "phi3",
        final_softcap=bool(softcap),
    )


def unknown_model_message(model: str) -> str:
    """Why ``model`` is refused, with the known ids nearest to it and the --config way out."""
    shown = model if len(model) <= 80 else model[:77] + "..."
    close = near(model)
    hint = f"near: {', '.join(close)}; " if close else ""
    return (f"unknown model {shown!r}: {hint}kb plan --list-models lists the {len(known_models())} it knows; "
            f"for another, give its config.json: --config PATH")


def _config_path(model: str) -> Path | None:
    """The config.json that ``model`` names (a file, or a folder holding one), if it names one."""
    if not model or "\0" in model or len(model) > 4096:
        return None
    from pathlib import Path  # (here: a model kb knows, as an OOM log names it, is no path; pathlib's import: ~1-2 ms)

    try:
        path = Path(model)
        if path.is_dir():
            path = path / "config.json"
        return path if path.exists() else None
    except OSError:  # a name too long for the file system
        return None


def load_shape(model: str) -> ModelShape:
    """A model id as people write it (``Qwen/Qwen2.5-14B-Instruct``, ``qwen2.5-14b``: kb/plan/names.py), or a
    path to a config.json (or a folder holding one), read through kb plan's bounded reader."""
    mid = resolve(model)
    if mid is not None:
        return from_config(known_models()[mid], mid)
    path = _config_path(model)
    if path is not None:
        return shape_from_file(str(path))
    raise ShapeError(unknown_model_message(model))


def shape_from_file(path: str) -> ModelShape:
    """The shape of a config.json (or of the folder holding one): ``kb plan --config PATH``."""
    if not path.strip():  # Path("") is the current folder: say what was given instead
        raise ShapeError("--config: an empty path (give the model's config.json or its folder)")
    from pathlib import Path

    file = Path(path)
    try:
        if file.is_dir():
            if not (file / "config.json").exists():  # (audit49: was "config 'config.json' not found")
                raise ShapeError(f"--config {file.name or str(file)!r} is a folder without a config.json")
            file = file / "config.json"
    except OSError:
        pass
    try:
        cfg = read_json(str(file), f"config {file.name!r}")
    except InputFileError as exc:
        raise ShapeError(str(exc)) from None
    if not isinstance(cfg, dict):
        raise ShapeError(f"config {file.name!r}: expected a JSON object of config.json fields")
    return from_config(cfg, file.parent.name or file.name)
