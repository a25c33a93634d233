"""Per-rank memory under a data-parallel strategy: DDP, FSDP (FSDP2, as accelerate applies it), DeepSpeed
ZeRO-2 and ZeRO-3 (`kb plan --strategy`; docs/plan.md, "Several GPUs: strategies").

Every rank runs the same micro-batch shape, so a rank's activations, logits and recomputation are those of the
one-GPU plan (kb/plan/estimate.py). What differs is where the model's state lives:

- ``ddp``: every rank holds the whole model, its gradients and optimizer states, and DDP's gradient buckets: a
  second copy of every trainable gradient (the Trainer leaves ``gradient_as_bucket_view`` off), allocated when the
  model is wrapped.
- ``fsdp``: accelerate upcasts the trainable parameters to fp32 before ``fully_shard`` (mixed precision keeps
  bf16 compute): parameters, fp32 gradients and optimizer states are split over the ranks. A unit is gathered in
  the compute dtype while it runs: one decoder layer (and the next one, prefetched in backward), and the tail
  (final norm + lm_head, + the embedding when tied) that accelerate keeps gathered from the end of the forward
  pass through the loss backward. ``shard_grad_op`` keeps every layer gathered between forward and backward.
- ``zero2``: bf16 parameters on every rank (DeepSpeed casts the module, adapters included), fp32 master weights,
  Adam states and the bf16 gradient partition split over the ranks, a reduce bucket of ``reduce_bucket_size``
  elements (the Trainer's ``auto``: hidden_size squared); at the step, the fp32 gradient partition.
- ``zero3``: as ZeRO-2 with the bf16 parameters split too; the module that runs is gathered (lm_head at the
  loss, plus a layer prefetched); parameters smaller than the persistence threshold (norms) stay whole.

CPU offload (``--offload optimizer|params``) moves the optimizer states (and fp32 master weights and gradient
partitions) or also the parameters to host memory: the rank's GPU keeps what is gathered and the activations,
and the host needs what moved.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kb.plan.estimate import DTYPE_BYTES, GIB, GpuPlan, estimate, logits_bytes, lora_params_per_layer, optimizer_bytes
from kb.plan.shapes import ModelShape
from kb.plan.spec import RunSpec, SpecError

DISTRIBUTED = ("ddp", "fsdp", "zero2", "zero3")
# parts of a one-GPU plan that are not model state replicated on every rank
_NOT_BASE = ("gradients", "optimizer_states", "activations", "logits_and_loss", "allocator_slack")


def ranks(spec: RunSpec) -> int:
    """How many GPUs (one process each): --gpus, else how many --gpu-gib sizes, else one."""
    return spec.gpus or len(spec.gpu_gib) or 1


def sizes(spec: RunSpec) -> tuple[float, ...]:
    """Each rank's card size: one --gpu-gib for every rank, one per rank, or none (unknown)."""
    n = ranks(spec)
    if len(spec.gpu_gib) == 1 and n > 1:
        return spec.gpu_gib * n
    return spec.gpu_gib


@dataclass
class RankState:
    """Bytes one rank holds of each part (state that persists through the step; gathered and temporaries apart)."""

    weights: float
    master: float
    grads: float
    grads_fwd: float  # the part of ``grads`` alive through the forward pass
    opt: float
    paged: float
    buckets: float
    gathered_fwd: float  # gathered (unsharded) parameters at the loss backward
    gathered_bwd: float  # gathered parameters + unsharded gradients while a layer's backward runs
    step_temp: float  # temporaries of the optimizer step (fp32 gradient partition, AdamW's buffer)
    cpu: float  # host memory the offload needs, per rank


def _trainable(shape: ModelShape, spec: RunSpec) -> tuple[float, float]:
    """(trainable parameters, of them in one decoder layer)."""
    if spec.lora_r == 0:
        return float(shape.total_params()), float(shape.layer_linear_params() + shape.layer_other_params())
    per_layer = float(lora_params_per_layer(shape, spec))
    return per_layer * shape.layers, per_layer


def _matrix_sides(shape: ModelShape, spec: RunSpec) -> float:
    """Rows + columns of the trained matrices (Adafactor's factored states), as the one-GPU plan counts them."""
    if spec.lora_r:
        from kb.plan.estimate import targeted

        return float(shape.layers * sum(2 * spec.lora_r + m.d_in + m.d_out for m in targeted(shape, spec)))
    emb = 1 if shape.tied else 2
    return float(shape.layers * sum(m.d_in + m.d_out for m in shape.linears()) + emb * (shape.vocab + shape.hidden))


def rank_state(shape: ModelShape, spec: RunSpec, one: GpuPlan, c: dict[str, float]) -> RankState:
    """What one rank of ``ranks(spec)`` holds, from the one-GPU plan ``one`` of the same run."""
    n = ranks(spec)
    dbytes = DTYPE_BYTES[spec.compute_dtype or "bf16"]
    full = spec.lora_r == 0
    parts = one.parts
    model_w = sum(v for k, v in parts.items() if k not in _NOT_BASE and k != "cuda_workspace")  # weights as loaded
    grads, opt = parts["gradients"], parts["optimizer_states"]
    grads_fwd = grads if (spec.grad_accum > 1 or not full) else 0.0
    step_temp = one.phases["optimizer step"] - (model_w + parts["cuda_workspace"] + grads + opt)
    pt, pt_layer = _trainable(shape, spec)
    sides = _matrix_sides(shape, spec)
    layer_w = (shape.layer_linear_params() + shape.layer_other_params()) * dbytes  # a gathered layer, compute dtype
    tail = (shape.embedding_params() + shape.hidden) * dbytes  # lm_head (or the tied embedding) + final norm
    s = spec.strategy
    if s == "ddp":
        return RankState(weights=model_w, master=0.0, grads=grads, grads_fwd=grads_fwd, opt=opt, paged=one.paged,
                         buckets=grads, gathered_fwd=0.0, gathered_bwd=0.0, step_temp=step_temp, cpu=0.0)
    frozen_w = model_w - (grads if full else parts.get("adapter_parameters", 0.0))  # the one-GPU plan's frozen weights
    if s == "fsdp":
        # trainable parameters upcast to fp32 (accelerate, mixed precision), then sharded with everything else
        shard_w = (frozen_w + 4.0 * pt) / n
        g = 4.0 * pt / n
        o, paged = (x / n for x in optimizer_bytes(spec.optim, pt, 4, sides))
        unit, unit_grad = layer_w, pt_layer * dbytes
        if spec.fsdp_sharding == "shard_grad_op":
            gathered_fwd = shape.layers * layer_w + tail
        else:
            gathered_fwd = tail + unit  # the tail stays gathered; the last layer is prefetched for backward
        gathered_bwd = gathered_fwd + (unit if spec.fsdp_sharding == "full_shard" else 0.0) + unit_grad
        state = RankState(weights=shard_w, master=0.0, grads=g, grads_fwd=g if spec.grad_accum > 1 else 0.0, opt=o,
                          paged=paged, buckets=0.0, gathered_fwd=gathered_fwd, gathered_bwd=gathered_bwd,
                          step_temp=c["optimizer_step_temp"] * g if o else 0.0, cpu=0.0)
        if spec.offload != "none":  # FSDP's cpu_offload moves parameters, gradients and optimizer states together
            state.cpu = state.weights + state.grads + state.opt
            state.weights = state.grads = state.grads_fwd = state.opt = state.step_temp = 0.0
        return state
    # DeepSpeed ZeRO: the engine casts the module to the compute dtype (LoRA adapters included)
    w16 = frozen_w + pt * dbytes
    master = 4.0 * pt / n
    o, paged = (x / n for x in optimizer_bytes(spec.optim, pt, 4, sides))
    gpart = dbytes * pt / n  # the gradient partition, in the compute dtype (ZeRO's grad_accum_dtype default)
    bucket = float(shape.hidden * shape.hidden * dbytes)  # reduce_bucket_size "auto": hidden_size^2 elements
    fp32_grad = 4.0 * pt / n  # the step converts the partition to fp32
    temp = fp32_grad + (c["optimizer_step_temp"] * master if o else 0.0)
    if s == "zero3":  # stage 3 steps one sub-group at a time (sub_group_size), freeing its fp32 gradient after
        group = zero3_largest_sub_group(shape, spec, n)
        temp = 4.0 * group + (c["optimizer_step_temp"] * 4.0 * group if o else 0.0)
    if s == "zero2":
        state = RankState(weights=w16, master=master, grads=gpart, grads_fwd=gpart, opt=o, paged=paged, buckets=bucket,
                          gathered_fwd=0.0, gathered_bwd=0.0, step_temp=temp, cpu=0.0)
    else:
        persistent = shape.layers * shape.layer_other_params() * dbytes  # norms and biases under the threshold
        shard_w = (w16 - persistent) / n + persistent
        unit = layer_w
        head = shape.embedding_params() * dbytes
        kept = zero3_layers_kept(shape, spec) * layer_w  # gathered at the end of forward, reused soon in backward
        head_grad = head if full else 0.0  # the head's weight gradient, unsharded until it is reduce-scattered
        state = RankState(weights=shard_w, master=master, grads=gpart, grads_fwd=gpart, opt=o, paged=paged,
                          buckets=bucket, gathered_fwd=head + unit + kept + head_grad,
                          gathered_bwd=2 * unit + pt_layer * dbytes,
                          step_temp=temp, cpu=0.0)
    if spec.offload in ("optimizer", "params"):  # offload_optimizer: master, states and the fp32 step on the host
        state.cpu = state.master + state.opt + fp32_grad + state.grads
        state.master = state.opt = state.step_temp = state.grads = state.grads_fwd = 0.0
    if spec.offload == "params" and s == "zero3":
        state.cpu += state.weights
        state.weights = 0.0
    return state


ZERO3_SUB_GROUP = 1e9  # DeepSpeed's sub_group_size default (the Trainer leaves it)
ZERO3_REUSE_DISTANCE = 1e9  # stage3_max_reuse_distance default, in parameters


def zero3_largest_sub_group(shape: ModelShape, spec: RunSpec, n: int) -> float:
    """Elements of the largest optimizer sub-group of one rank under ZeRO-3. DeepSpeed's _create_fp16_sub_groups
    walks the (decay) parameter group in module order, adding each parameter's partition until the sub-group
    reaches sub_group_size; the step converts one sub-group's gradients to fp32 and runs the optimizer on it, then
    frees them (stage3.py step: _prepare_sub_group ... _release_sub_group)."""
    if spec.lora_r:
        return float(lora_params_per_layer(shape, spec) * shape.layers) / n  # far below sub_group_size: one group
    sizes = [float(shape.embedding_params())]
    for _ in range(shape.layers):
        sizes += [float(m.d_in * m.d_out) for m in shape.linears()]
    if not shape.tied:
        sizes.append(float(shape.embedding_params()))
    largest = group = 0.0
    for numel in sizes:
        group += numel / n
        if group >= ZERO3_SUB_GROUP:
            largest, group = max(largest, group), 0.0
    return max(largest, group)


def zero3_layers_kept(shape: ModelShape, spec: RunSpec) -> int:
    """Decoder layers ZeRO-3 keeps gathered from the end of the forward pass into the backward: with a complete
    trace, a module's parameters are not released when they are used again within stage3_max_reuse_distance
    parameters (partitioned_param_coordinator.__params_to_release). Layer k of N comes back after the layers above
    it twice (forward, then backward) and the head twice."""
    layer = float(shape.layer_linear_params() + shape.layer_other_params())
    head = float(shape.embedding_params())
    return sum(1 for k in range(shape.layers) if 2 * (shape.layers - 1 - k) * layer + 2 * head < ZERO3_REUSE_DISTANCE)


def one_dtype(spec: RunSpec) -> str:
    return spec.resolved().compute_dtype or "bf16"


def per_rank(shape: ModelShape, spec: RunSpec, c: dict[str, float]) -> list[GpuPlan]:
    """One :class:`GpuPlan` per rank under ``spec.strategy`` (DDP, FSDP, ZeRO-2, ZeRO-3)."""
    if spec.strategy not in DISTRIBUTED:
        raise SpecError(f"--strategy {spec.strategy}: not a data-parallel strategy")
    if spec.device_map is not None:
        raise SpecError(f"--device-map places modules on GPUs; --strategy {spec.strategy} runs one whole model per rank")
    gpu_sizes = sizes(spec)
    one = estimate(shape, spec.with_(strategy=None, gpus=None, gpu_gib=gpu_sizes[:1], offload="none",
                                     fsdp_sharding="full_shard"), c)[0]
    st = rank_state(shape, spec, one, c)
    parts = one.parts
    ws = parts["cuda_workspace"]
    single_state = sum(v for k, v in parts.items() if k not in _NOT_BASE)
    g_fwd_single = parts["gradients"] if (spec.grad_accum > 1 or spec.lora_r) else 0.0
    x_loss = one.phases["loss backward"] - (single_state + parts["optimizer_states"] + g_fwd_single)
    x_recompute = (one.phases["recompute"] - (single_state + parts["optimizer_states"] + g_fwd_single)
                   if "recompute" in one.phases else None)
    held = st.weights + st.master + st.opt + st.buckets + ws
    logits = logits_bytes(shape, spec.resolved(), c) + (shape.embedding_params() * DTYPE_BYTES[one_dtype(spec)] if spec.resolved().prep else 0.0)
    acts = max(0.0, x_loss - logits)  # what the layers keep for backward (checkpointed inputs, with checkpointing)
    phases = {
        "loss backward": held + st.grads_fwd + st.gathered_fwd + x_loss,
        "optimizer step": held + st.grads + st.step_temp,
    }
    # a layer's backward: its gathered parameters and unsharded gradients next to the gradient shards filled so far
    g_bwd = st.grads if st.gathered_bwd else st.grads_fwd
    if x_recompute is not None:
        phases["recompute"] = held + g_bwd + st.gathered_bwd + x_recompute
    elif st.gathered_bwd:
        phases["layer backward"] = held + g_bwd + st.gathered_bwd + acts
    if "setup" in one.phases:
        phases["setup"] = one.phases["setup"]
    peak_phase = max(phases, key=phases.__getitem__)
    peak = phases[peak_phase]
    slack = c["reserved_extra_gib"] + c["reserved_per_1k_tokens_gib"] * spec.tokens / 1024
    reserved = peak * c["reserved_factor"] + slack * GIB
    at = {"loss backward": (acts, x_loss - acts, st.gathered_fwd, 0.0),
          "recompute": ((x_recompute or 0.0), 0.0, st.gathered_bwd, 0.0),
          "layer backward": (acts, 0.0, st.gathered_bwd, 0.0),
          "optimizer step": (0.0, 0.0, 0.0, st.step_temp)}.get(peak_phase, (0.0, 0.0, 0.0, 0.0))
    new_parts = {
        "weights": st.weights, "kbit_prep_upcast": 0.0, "adapter_parameters": 0.0, "gradients": st.grads,
        "optimizer_states": st.opt, "activations": at[0], "logits_and_loss": at[1], "cuda_workspace": ws,
        "master_weights": st.master, "communication_buckets": st.buckets, "gathered_parameters": at[2],
        "optimizer_temporaries": at[3], "allocator_slack": reserved - peak,
    }
    if spec.strategy == "ddp":  # the one-GPU split of the weights (upcast, adapters) still holds on each rank
        new_parts.update(weights=parts["weights"], kbit_prep_upcast=parts["kbit_prep_upcast"],
                         adapter_parameters=parts["adapter_parameters"])
    plans = []
    for g in range(ranks(spec)):
        plans.append(GpuPlan(index=g, total_gib=gpu_sizes[g] if g < len(gpu_sizes) else None,
                             modules=list(one.modules), layers=shape.layers, parts=dict(new_parts), phases=dict(phases),
                             peak_phase=peak_phase, peak_allocated=peak, peak_reserved=reserved, context=one.context,
                             paged=st.paged))
    return plans


def plan_strategy(shape: ModelShape, spec: RunSpec, c: dict[str, float]) -> list[GpuPlan]:
    """estimate()'s answer for a run with --strategy ddp|fsdp|zero2|zero3 or --gpus: per rank; ``single`` and
    ``device-map`` with --gpus are the one-process plans (one GPU; the layers spread over the GPUs)."""
    if spec.strategy in DISTRIBUTED:
        return per_rank(shape, spec, c)
    n = ranks(spec)
    if spec.strategy is None:
        raise SpecError(f"--gpus {n}: say how the GPUs are used: --strategy ddp, fsdp, zero2, zero3 (one process per GPU) "
                        "or device-map (one process, the layers spread over the GPUs)")
    if spec.strategy == "single":
        if n > 1:
            raise SpecError(f"--strategy single plans one GPU, not {n}")
        return estimate(shape, spec.with_(gpus=None, strategy=None), c)
    if not spec.gpu_gib:
        raise SpecError("--strategy device-map spreads the layers by each GPU's size: give --gpu-gib")
    return estimate(shape, spec.with_(gpus=None, strategy=None, gpu_gib=sizes(spec)), c)


def strategy_doc(shape: ModelShape, spec: RunSpec) -> dict[str, Any] | None:
    """The ``strategy`` object of kb plan's JSON: what is sharded, what is gathered, the CPU-offload options."""
    spec = spec.resolved()
    if spec.strategy not in DISTRIBUTED:
        return None
    from kb.plan.estimate import constants

    c = constants()
    one = estimate(shape, spec.with_(strategy=None, gpus=None, gpu_gib=sizes(spec)[:1], offload="none",
                                     fsdp_sharding="full_shard"), c)[0]
    st = rank_state(shape, spec, one, c)
    n = ranks(spec)
    dbytes = DTYPE_BYTES[spec.compute_dtype or "bf16"]
    shards = {"ddp": "nothing: every rank holds the model, its gradients and optimizer states",
              "fsdp": "parameters (trainable ones upcast to fp32), gradients and optimizer states",
              "zero2": "fp32 master weights, optimizer states and gradients",
              "zero3": "parameters, fp32 master weights, optimizer states and gradients"}[spec.strategy]
    options = []
    choices = {"fsdp": ("none", "params"), "zero2": ("none", "optimizer"), "zero3": ("none", "optimizer", "params")}
    for off in choices.get(spec.strategy, ()):
        trial = spec.with_(offload=off)
        plans = per_rank(shape, trial, c)
        p = plans[0]
        options.append({"offload": off, "peak_allocated_gib": round(p.peak_allocated / GIB, 3),
                        "needs_gib": round((p.peak_allocated + p.context + p.paged) / GIB, 3),
                        "cpu_gib_per_rank": round(rank_state(shape, trial, one, c).cpu / GIB, 3),
                        "fits": p.fits if all(q.fits is not None for q in plans) else None})
    unit = (shape.layer_linear_params() + shape.layer_other_params()) * dbytes
    return {"name": spec.strategy, "gpus": n, "per_rank": True, "sharded": shards,
            "fsdp_sharding": spec.fsdp_sharding if spec.strategy == "fsdp" else None, "offload": spec.offload,
            "communication_buckets_gib": round(st.buckets / GIB, 3),
            "gathered_unit_gib": round(unit / GIB, 3) if spec.strategy in ("fsdp", "zero3") else None,
            "gathered_at_loss_gib": round(st.gathered_fwd / GIB, 3),
            "cpu_offload_gib_per_rank": round(st.cpu / GIB, 3), "offload_options": options,
            "batch_per_rank": spec.batch, "global_batch": spec.batch * spec.grad_accum * n}


def strategy_alternatives(shape: ModelShape, spec: RunSpec) -> list[dict[str, Any]]:
    """For a run under a data-parallel strategy that does not fit: the other strategies on the same GPUs, and
    each CPU-offload option, each with its predicted per-rank peak (kb plan's ``to_fit`` rows)."""
    from kb.plan.estimate import constants

    spec = spec.resolved()
    c = constants()
    trials: list[tuple[str, RunSpec]] = []
    for other in DISTRIBUTED:
        if other != spec.strategy:
            trials.append((f"--strategy {other}", spec.with_(strategy=other, offload="none", fsdp_sharding="full_shard")))
    for other, offloads in (("zero2", ("optimizer",)), ("zero3", ("optimizer", "params")), ("fsdp", ("params",))):
        for off in offloads:
            if (other, off) != (spec.strategy, spec.offload):
                trials.append((f"--strategy {other} --offload {off}", spec.with_(strategy=other, offload=off,
                                                                                fsdp_sharding="full_shard")))
    rows = []
    for label, trial in trials:
        try:
            plans = per_rank(shape, trial, c)
        except SpecError:
            continue
        worst = max(plans, key=lambda p: p.peak_reserved)
        known = [p.fits for p in plans if p.fits is not None]
        rows.append({"change": label, "peak_allocated_gib": round(worst.peak_allocated / GIB, 2),
                     "peak_reserved_gib": round(worst.peak_reserved / GIB, 2), "gpu": worst.index,
                     "fits": all(known) if known else None})
    return rows
