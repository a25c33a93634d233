"""The arithmetic of `kb plan`: per-GPU peak memory of a fine-tuning step, by part and by phase.

Pure Python (no torch). Each part is counted from the model's shape and the run's settings the way the
libraries allocate it (docs/plan.md derives every term); tables/plan-constants.toml holds the constants,
a few of them fitted on a measured grid (benchmarks/plan_error.py).

Phases whose peak is compared (per GPU; the largest is the peak):
- ``setup``: prepare_model_for_kbit_training's fp32 upcast, one matrix at a time (bf16 original + fp32 copy);
- ``loss backward``: all activations kept for backward (or the checkpointed layer inputs) + the logits and
  their gradients, with optimizer states from step 2 on;
- ``recompute``: with checkpointing, one layer's activations rebuilt in backward;
- ``optimizer step``: gradients + optimizer states + the optimizer's temporaries.
"""

from __future__ import annotations

from kb.knowledge.precompiled import Deferred  # (the regex cache's: no `re` import on kb diagnose's OOM path)
from kb.knowledge.tables import read_table
from kb.plan.refs import case_ref
from kb.plan.shapes import Linear, ModelShape
from kb.plan.spec import RunSpec, SpecError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

GIB = 1024**3
DTYPE_BYTES = {"bf16": 2, "fp16": 2, "fp32": 4}


def constants() -> dict[str, float]:
    data = read_table("plan-constants")
    return {k: float(v) for section in data.values() for k, v in section.items()}


class GpuPlan:
    """One GPU's share of the run and its memory. (A plain class, compared and printed as the dataclass it was:
    `import dataclasses` costs kb diagnose ~13 ms where it plans an OOM log, kb/knowledge/values.py.)"""

    FIELDS = ("index", "total_gib", "modules", "layers", "parts", "phases", "peak_phase", "peak_allocated",
              "peak_reserved", "context", "paged")
    __hash__ = None  # type: ignore[assignment] - mutable, compared by value: unhashable, as the dataclass was

    def __init__(self, index: int, total_gib: float | None, modules: list[str], layers: int = 0,
                 parts: dict[str, float] | None = None, phases: dict[str, float] | None = None, peak_phase: str = "",
                 peak_allocated: float = 0.0, peak_reserved: float = 0.0, context: float = 0.0,
                 paged: float = 0.0) -> None:
        self.index = index
        self.total_gib = total_gib
        self.modules = modules  # the modules other than decoder layers it holds (embed_tokens, norm, lm_head)
        self.layers = layers  # how many decoder layers it holds
        self.parts: dict[str, float] = {} if parts is None else parts  # bytes
        self.phases: dict[str, float] = {} if phases is None else phases  # bytes allocated at each phase's peak
        self.peak_phase = peak_phase
        self.peak_allocated = peak_allocated
        self.peak_reserved = peak_reserved
        self.context = context
        self.paged = paged

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in self.FIELDS)

    def __repr__(self) -> str:
        return "GpuPlan(" + ", ".join(f"{f}={getattr(self, f)!r}" for f in self.FIELDS) + ")"

    @property
    def fits(self) -> bool | None:
        """Allocated peak + CUDA context + paged states within the card. The allocator's cached slack is not
        counted here: near the limit it frees cached blocks and retries before it raises (see ``tight``)."""
        if self.total_gib is None:
            return None
        return self.peak_allocated + self.context + self.paged <= self.total_gib * GIB

    @property
    def tight(self) -> bool:
        """Fits by allocation, but not with the slack the allocator usually keeps: fragmentation can fail it."""
        return bool(self.fits) and self.peak_reserved + self.context + self.paged > (self.total_gib or 0) * GIB


# --------------------------------------------------------------------------- what is trained


def targeted(shape: ModelShape, spec: RunSpec) -> list[Linear]:
    """The linear layers LoRA wraps in each decoder layer (all-linear: every one but lm_head)."""
    mods = shape.linears()
    if spec.lora_r == 0 or spec.target_modules.strip().lower() in ("all-linear", "all_linear", "all"):
        return mods
    wanted = {t.strip() for t in spec.target_modules.split(",") if t.strip()}
    names = {m.name for m in mods}
    unknown = wanted - names
    if unknown:
        raise SpecError(f"--target-modules {', '.join(sorted(unknown))}: {shape.name} ({shape.model_type}) has "
                        f"{', '.join(sorted(names))} (a name of another architecture matches nothing: {case_ref('target-modules-unknown')})")
    return [m for m in mods if m.name in wanted]


def lora_params_per_layer(shape: ModelShape, spec: RunSpec) -> int:
    return sum(spec.lora_r * (m.d_in + m.d_out) for m in targeted(shape, spec)) if spec.lora_r else 0


def optimizer_bytes(optim: str, params: float, param_bytes: int, matrix_sides: float) -> tuple[float, float]:
    """(bytes in torch's allocator, bytes in paged/unified memory) of the optimizer states. ``matrix_sides``:
    rows + columns summed over the trained matrices (Adafactor keeps a vector of each)."""
    if optim in ("adamw_torch", "adamw_torch_fused"):
        return 2.0 * param_bytes * params, 0.0
    if optim in ("adamw_8bit", "adamw_bnb_8bit"):
        return 2.0 * params, 0.0
    if optim == "paged_adamw_8bit":
        return 0.0, 2.0 * params
    if optim == "paged_adamw_32bit":
        return 0.0, 8.0 * params
    if optim == "adafactor":  # factored second moment: a row and a column vector per matrix
        return 4.0 * matrix_sides, 0.0
    return 0.0, 0.0  # sgd without momentum


# --------------------------------------------------------------------------- activations


def layer_activation_bytes(shape: ModelShape, spec: RunSpec) -> float:
    """Bytes one decoder layer keeps for backward, per token (no checkpointing), before activation_scale."""
    h, i, q, kv = shape.hidden, shape.intermediate, shape.q_dim, shape.kv_dim
    full = spec.lora_r == 0
    wide = 4 if spec.prep else 2  # a prepared k-bit model runs its residual stream and MLP in fp32
    total = shape.norms_per_layer * 4 * h  # RMSNorm keeps an fp32 copy of its input
    if full:
        total += shape.norms_per_layer * 2 * h  # and its normalised output, when the norm weight trains
    if shape.qk_norm:
        total += 4 * (q + kv)
    total += 2 * q + 4 * kv + 2 * q  # attention kernel: q, k, v and its output (bf16)
    if shape.fused:
        total += 2 * q + 2 * kv  # a view of the fused qkv output keeps all of it
    if spec.attn == "eager":
        total += 2 * (q - kv) * 2  # k and v repeated to every head
        total += shape.heads * spec.seq * 6  # fp32 softmax output + its bf16 copy
    total += 3 * i * wide  # gate output, activation output, up output
    lora = {m.name for m in targeted(shape, spec)} if not full else set()
    groups: dict[str, list[Linear]] = {}
    for m in shape.linears():
        groups.setdefault(m.group, []).append(m)
    for group, mods in groups.items():
        d_in = mods[0].d_in
        if full:
            total += 2 * d_in  # a trained linear keeps its input
            continue
        hit = [m for m in mods if m.name in lora]
        if not hit:
            continue
        fp32_input = spec.prep and group != "o_in"
        if not spec.autocast:  # peft casts the input to the fp32 adapters itself: an fp32 copy per adapter
            mask = 1 if spec.lora_dropout > 0 else 0
            total += (4 + mask) * d_in * (len(hit) if (spec.lora_dropout > 0 or not fp32_input) else 1)
        elif spec.lora_dropout > 0:
            total += 3 * d_in * len(hit)  # each adapter's dropout: bf16 output (or its cast) + bool mask
        elif fp32_input or not spec.half_adapters:
            # peft casts the input to each fp32 adapter's dtype (x.to(float32)), then autocast casts that copy back
            # to bf16 for the matmul: each adapter keeps its own half-precision copy of its input
            total += 2 * d_in * len(hit)
        else:
            total += 2 * d_in  # adapters already in the compute dtype: no cast, they share the input tensor
    return float(total)


def logits_bytes(shape: ModelShape, spec: RunSpec, c: dict[str, float]) -> float:
    per = c["logits_bytes_per_element"] + (c["softcap_bytes_per_element"] if shape.final_softcap else 0.0)
    return per * spec.tokens * shape.vocab


# --------------------------------------------------------------------------- placement


IO_MODULES = ("model.embed_tokens", "model.norm", "lm_head")
_LAYER_KEY = Deferred(r"model\.layers\.(0|[1-9][0-9]{0,8})")


class Placement:
    """Where the modules are: the input/output modules by name, the decoder layers as a count per GPU (a
    model's layers are counted, never listed: the arithmetic stays linear in the GPUs and the map)."""

    __hash__ = None  # type: ignore[assignment] - mutable, compared by value (as the dataclass it was)

    def __init__(self, io: dict[str, int], layers: dict[int, int]) -> None:
        self.io = io
        self.layers = layers

    def __eq__(self, other: object) -> bool:
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.io, self.layers) == (other.io, other.layers)  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"Placement(io={self.io!r}, layers={self.layers!r})"

    @property
    def gpus(self) -> int:
        return 1 + max([*self.io.values(), *self.layers])


def _lookup(mapping: dict[str, int], name: str) -> int | None:
    """The GPU of ``name`` under a device map: its own key, else its nearest parent's, else ``""``'s."""
    while True:
        if name in mapping:
            return mapping[name]
        if "." not in name:
            return mapping.get("")
        name = name.rsplit(".", 1)[0]


def auto_layer_counts(layers: int, sizes: list[float]) -> dict[int, int]:
    """Layers per GPU of the balanced map (in proportion to the GPUs' sizes, in order): GPU g holds the layers
    below round(layers x the share of GPUs 0..g), the last GPU the rest."""
    total = sum(sizes)
    counts: dict[int, int] = {}
    bound, done = 0.0, 0
    for g, size in enumerate(sizes):
        share = size / total
        end = layers if g == len(sizes) - 1 else min(layers, max(done, round(layers * (bound + share))))
        bound += share
        if end > done:
            counts[g] = end - done
            done = end
    return counts


def place(shape: ModelShape, spec: RunSpec) -> Placement:
    """Auto: layers split over the GPUs in proportion to their size (accelerate's balanced map), embedding on
    the first GPU, norm and head on the last. An explicit map resolves each module by its longest key
    (``model.layers`` covers every layer, ``""`` the whole model)."""
    io_names = IO_MODULES if not shape.tied else IO_MODULES[:2]
    n_gpu = max(1, len(spec.gpu_gib))
    if not isinstance(spec.device_map, dict):
        io = {"model.embed_tokens": 0, "model.norm": n_gpu - 1, "lm_head": n_gpu - 1 if not shape.tied else 0}
        return Placement(io=io, layers=auto_layer_counts(shape.layers, list(spec.gpu_gib) or [1.0]))
    mapping: dict[str, int] = spec.device_map
    io: dict[str, int] = {}
    missing = []
    for name in io_names:
        gpu = _lookup(mapping, name)
        if gpu is None:
            missing.append(name)
        else:
            io[name] = gpu
    explicit: dict[int, int] = {}
    for key, gpu in mapping.items():
        m = _LAYER_KEY.fullmatch(key)
        if m and int(m.group(1)) < shape.layers:
            explicit[int(m.group(1))] = gpu
    default = _lookup(mapping, "model.layers")
    counts: dict[int, int] = {}
    for gpu in explicit.values():
        counts[gpu] = counts.get(gpu, 0) + 1
    rest = shape.layers - len(explicit)
    if rest and default is None:
        unplaced = (f"model.layers.{i}" for i in range(shape.layers) if i not in explicit)
        at = 1 if "model.embed_tokens" in missing else 0  # in the model's order: embedding, layers, norm, head
        missing[at:at] = [name for name, _ in zip(unplaced, range(5))]
    elif rest:
        counts[default] = counts.get(default, 0) + rest
    if missing:
        raise SpecError(f"--device-map places no GPU for {', '.join(missing[:4])}{' ...' if len(missing) > 4 else ''}")
    if shape.tied:
        io["lm_head"] = io["model.embed_tokens"]
    return Placement(io=io, layers=counts)


_WHOLE_MODULES = IO_MODULES + ("model.rotary_emb",)  # the modules besides the layers a map may place
_MODULE_KEYS = ("", "model", "model.layers") + _WHOLE_MODULES


def unplaced_keys(shape: ModelShape, mapping: dict[str, int]) -> tuple[list[str], list[str]]:
    """The keys of an explicit device map that :func:`place` does not use: those naming no module of this model
    (a typo, a layer index past its last layer, a zero-padded index) and those below a decoder layer or one of the
    other modules (kb places whole modules)."""
    unknown: list[str] = []
    finer: list[str] = []
    for key in mapping:
        if key in _MODULE_KEYS:
            continue
        layer = _LAYER_KEY.fullmatch(".".join(key.split(".")[:3]))
        if layer and int(layer.group(1)) < shape.layers:
            if key.count(".") > 2:
                finer.append(key)
            continue
        if any(key.startswith(m + ".") for m in _WHOLE_MODULES):
            finer.append(key)
            continue
        unknown.append(key)
    return unknown, finer


# --------------------------------------------------------------------------- the plan


def estimate(shape: ModelShape, spec: RunSpec, c: dict[str, float] | None = None) -> list[GpuPlan]:
    """One :class:`GpuPlan` per GPU (one when no --gpu-gib is given)."""
    if spec.trainer != "sft" or spec.task != "train":  # trl's trainers and generation: kb/plan/trainers.py
        from kb.plan.trainers import estimate_trainer

        return estimate_trainer(shape, spec, c or constants())
    spec = spec.resolved()
    spec.check()
    c = c or constants()
    if spec.strategy not in (None, "device-map") or spec.gpus is not None:  # --strategy/--gpus: kb/plan/strategy.py
        from kb.plan.strategy import plan_strategy

        return plan_strategy(shape, spec, c)
    dbytes = DTYPE_BYTES[spec.compute_dtype]
    lin, other, emb = shape.layer_linear_params(), shape.layer_other_params(), shape.embedding_params()
    if spec.quant in ("nf4", "fp4"):
        absmax = c["double_quant_absmax_bytes_per_param"] if spec.double_quant else c["absmax_bytes_per_param"]
        lin_bytes = lin * (c["nf4_bytes_per_param"] + absmax)
    elif spec.quant == "int8":
        lin_bytes = lin * c["int8_bytes_per_param"] + 4 * sum(m.d_out for m in shape.linears())
    else:
        lin_bytes = lin * dbytes
    layer_w = lin_bytes + other * dbytes
    upcast = 2.0 if spec.prep and dbytes == 2 else 0.0  # extra bytes per non-quantized parameter
    full = spec.lora_r == 0
    if full and spec.quant != "none":
        raise SpecError(f"full fine-tuning (--lora-r 0) of a quantized model does not train: use LoRA "
                        f"({case_ref('full-finetune-quantized')})")
    lora_layer = lora_params_per_layer(shape, spec)
    trainable_bytes = dbytes if full else 4  # peft keeps adapters in fp32
    placed = place(shape, spec)
    n_gpu = max(1, len(spec.gpu_gib), placed.gpus)
    full_sides = sum(m.d_in + m.d_out for m in shape.linears())  # rows + columns of a layer's matrices
    lora_sides = sum(2 * spec.lora_r + m.d_in + m.d_out for m in targeted(shape, spec)) if not full else 0
    act_layer = layer_activation_bytes(shape, spec) * c["activation_scale"] * spec.tokens
    wide = 4 if spec.prep else 2
    ckpt_layer = spec.tokens * shape.hidden * wide
    plans = []
    for g in range(n_gpu):
        mods = [m for m, d in placed.io.items() if d == g]
        n_layers = placed.layers.get(g, 0)
        has_emb = "model.embed_tokens" in mods
        has_head = "lm_head" in mods or (shape.tied and has_emb)
        n_emb = (1 if has_emb else 0) + (1 if "lm_head" in mods and not shape.tied else 0)
        has_norm = "model.norm" in mods
        weights = n_layers * layer_w + n_emb * emb * dbytes + has_norm * shape.hidden * dbytes
        non_quant = n_layers * other + n_emb * emb + has_norm * shape.hidden
        prep_part = non_quant * upcast
        if full:
            params = n_layers * (lin + other) + n_emb * emb + has_norm * shape.hidden
            sides = n_layers * full_sides + n_emb * (shape.vocab + shape.hidden)
        else:
            params = n_layers * lora_layer
            sides = n_layers * lora_sides
        adapters = 0.0 if full else params * 4.0
        grads = params * trainable_bytes
        opt, paged = optimizer_bytes(spec.optim, params, trainable_bytes, sides)
        if spec.grad_ckpt == "off":
            acts = n_layers * act_layer
            recompute = 0.0
        else:
            acts = n_layers * ckpt_layer
            recompute = (act_layer + c["recompute_grad_buffers"] * spec.tokens * shape.hidden * 4) if n_layers else 0.0
        logits = logits_bytes(shape, spec, c) if has_head else 0.0
        if has_head and spec.prep:
            logits += emb * dbytes  # autocast's half-precision copy of the fp32 lm_head, kept for backward
        ws = c["cublas_workspace_gib"] * GIB if (n_layers or has_head) else 0.0
        base = weights + prep_part + adapters + ws
        # gradients live through the forward pass only when micro-batches accumulate (or adapters: small)
        grads_in_fwd = grads if (spec.grad_accum > 1 or not full) else 0.0
        phases = {
            "loss backward": base + opt + grads_in_fwd + acts + logits,
            "optimizer step": base + grads + opt + c["optimizer_step_temp"] * grads * (1.0 if opt else 0.0),
        }
        if recompute:
            phases["recompute"] = base + opt + grads_in_fwd + acts + recompute
        if prep_part:
            largest = emb if n_emb else (other if n_layers else shape.hidden)
            phases["setup"] = weights + prep_part + 2.0 * largest
        peak_phase = max(phases, key=phases.__getitem__)
        peak = phases[peak_phase]
        # the caching allocator's slack grows with the step's token count (block sizes follow batch x sequence)
        slack = c["reserved_extra_gib"] + c["reserved_per_1k_tokens_gib"] * spec.tokens / 1024
        reserved = peak * c["reserved_factor"] + slack * GIB
        parts = {"weights": weights, "kbit_prep_upcast": prep_part, "adapter_parameters": adapters,
                 "gradients": grads, "optimizer_states": opt, "activations": acts + (recompute if peak_phase == "recompute" else 0.0),
                 "logits_and_loss": logits if peak_phase == "loss backward" else 0.0, "cuda_workspace": ws,
                 "allocator_slack": reserved - peak}
        context = (spec.context_gib if spec.context_gib is not None else c["cuda_context_gib"]) * GIB
        total = spec.gpu_gib[g] if g < len(spec.gpu_gib) else None
        plans.append(GpuPlan(index=g, total_gib=total, modules=mods, layers=n_layers, parts=parts, phases=phases, peak_phase=peak_phase,
                             peak_allocated=peak, peak_reserved=reserved, context=context, paged=paged))
    return plans


def summary(plans: list[GpuPlan]) -> dict[str, Any]:
    """The figures of the fullest GPU (what the advice and the pre-flight check look at)."""
    worst = max(plans, key=lambda p: (p.fits is False, p.peak_reserved))
    return {"gpu": worst.index, "peak_allocated_gib": worst.peak_allocated / GIB, "peak_reserved_gib": worst.peak_reserved / GIB,
            "fits": all(p.fits is not False for p in plans) if any(p.total_gib for p in plans) else None}
