"""The memory planner's answer for an OOM whose log names the model (issue #23.2).

When an answer is of the ``cuda-oom`` family (a case of it or the family) and the log named a Hub
model id (kb/diagnose/environment.py: ``model``), the planner (``kb.plan.quick.plan_for_oom``) is
asked what the run needs with the settings the log shows (batch, sequence length, quantization, the
card's size, the LoRA rank) and its answer is attached to the answer as ``plan``. kb.plan is imported
only then; without it (an older kb.plan) nothing is attached.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from kb.diagnose.answers import Answer

OOM_FAMILY = "cuda-oom"
# The log's quantization fact (kb/diagnose/environment.py) as the planner's --quant spells it (kb/plan/spec.py).
QUANT_FOR_PLAN = {"4bit": "nf4", "8bit": "int8"}


def _int(value: str | None) -> int | None:
    return int(value) if value is not None and value.isdigit() else None


def plan_arguments(environment: dict[str, str]) -> dict[str, Any] | None:
    """The planner's arguments from the log's facts; None when the log names no model."""
    model = environment.get("model")
    if not model:
        return None
    quant = environment.get("quant")
    if quant == "4bit" and environment.get("quant_type") in ("nf4", "fp4"):
        quant_arg: str | None = environment["quant_type"]
    else:
        quant_arg = QUANT_FOR_PLAN.get(quant or "")
    gib = environment.get("gpu_memory_gib")
    try:
        gpu_gib = float(gib) if gib else None
    except ValueError:
        gpu_gib = None
    args: dict[str, Any] = {"model": model, "batch": _int(environment.get("batch")), "seq": _int(environment.get("seq")),
                            "quant": quant_arg, "gpu_gib": gpu_gib, "lora_r": _int(environment.get("lora_r"))}
    world = _int(environment.get("world_size"))
    if world is not None and world > 1:  # torchrun's ranks: each one's plan (DDP assumed)
        args["world_size"] = world
    return args


def attach_plan(answers: list[Answer], environment: dict[str, str]) -> None:
    """Attach the planner's answer to every cuda-oom answer when the log names the model (computed once)."""
    oom = [a for a in answers if a.match.entry.family == OOM_FAMILY]
    if not oom:
        return
    args = plan_arguments(environment)
    if args is None:
        return
    try:
        from kb.plan.quick import plan_for_oom
    except ImportError:  # a kb.plan without the quick planner
        return
    model = args.pop("model")
    try:
        plan = plan_for_oom(model, **args)
    except TypeError:  # a kb.plan.quick without world_size
        args.pop("world_size", None)
        plan = plan_for_oom(model, **args)
    if plan is None:  # a model the planner does not know
        return
    for answer in oom:
        answer.plan = plan
