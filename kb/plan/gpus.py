"""The card a GPU size means (tables/gpus.toml) and whether it runs bf16: kb plan's defaults follow the
card (fp16 where bf16 is not native) and an explicit bf16 on a card before compute capability 8.0 is refused.

A size is read as torch reports it (``min_gib``..``max_gib``, 14.74 on a T4) or as nvidia-smi and NVML
report it (``nvidia_smi_gib``, 15.0 on a T4): `--gpu-gib 15` is what a Colab user reads off nvidia-smi.
"""

from __future__ import annotations


from kb.knowledge.tables import read_table

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (kb diagnose plans an OOM log with this module)
if TYPE_CHECKING:
    from typing import Any

BF16_MIN_CAPABILITY = 8.0  # Ampere: bf16 tensor cores


def card_for(gib: float) -> dict[str, Any] | None:
    """The card of tables/gpus.toml whose reported capacity ``gib`` is, or None."""
    for card in read_table("gpus")["card"]:
        if card["min_gib"] <= gib <= card["max_gib"]:
            return card
        smi = card.get("nvidia_smi_gib")
        if smi is not None and abs(gib - smi) < 0.005:
            return card
    return None


def without_bf16(gpu_gib: tuple[float, ...]) -> tuple[int, dict[str, Any]] | None:
    """(index, card) of the first GPU whose card has no native bf16 (every card of its size range is before
    compute capability 8.0), or None."""
    for index, gib in enumerate(gpu_gib):
        card = card_for(gib)
        cc = card.get("max_compute_capability") if card else None
        if cc is not None and cc < BF16_MIN_CAPABILITY:
            return index, card
    return None


def bf16_refusal(compute_dtype: str | None, gpu_gib: tuple[float, ...], case: str = "") -> str | None:
    """Why bf16 asked for explicitly cannot be planned on these GPUs (a card before compute capability 8.0),
    or None. ``case`` names the kb case (kb/plan/refs.py) for the message."""
    if compute_dtype != "bf16":
        return None
    slow = without_bf16(gpu_gib)
    if slow is None:
        return None
    index, card = slow
    return (f"bf16 on GPU {index}, a {card['name']}: bf16 needs compute capability {BF16_MIN_CAPABILITY:.1f} (Ampere) "
            f"or later, and this card is {card['max_compute_capability']:.1f} at most; transformers refuses bf16=True "
            f"there, or torch emulates it slowly{f' ({case})' if case else ''}: use --compute-dtype fp16 "
            "(fp16: true in a --from file)")
