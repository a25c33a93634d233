"""KB0054's adapter: a LoRA adapter folder as peft 0.21.2 saves it (adapter_config.json + adapter_model.safetensors).

It is written with json, torch and safetensors alone, not with peft, because the failing program runs a peft
release (0.6.2) that cannot write what a newer one writes: the folder is what a user downloads from the Hub or
copies from the machine that trained it, for the tiny Llama of kb/fixtures/tiny.py (2 layers, hidden size 64),
with LoRA on q_proj and v_proj.
"""

from __future__ import annotations

import json
from pathlib import Path

import torch
from safetensors.torch import save_file

# Every key peft 0.21.2's LoraConfig.save_pretrained wrote for LoraConfig(r=8, lora_alpha=16,
# target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM") (recorded from a run, sorted as peft writes them).
CONFIG = {
    "alora_invocation_tokens": None, "alpha_pattern": {}, "arrow_config": None, "auto_mapping": None,
    "base_model_name_or_path": None, "bias": "none", "corda_config": None, "ensure_weight_tying": False,
    "eva_config": None, "exclude_modules": None, "fan_in_fan_out": False, "inference_mode": True,
    "init_lora_weights": True, "kasa_config": None, "layer_replication": None, "layers_pattern": None,
    "layers_to_transform": None, "loftq_config": {}, "lora_alpha": 16, "lora_bias": False, "lora_dropout": 0.0,
    "lora_ga_config": None, "megatron_config": None, "megatron_core": "megatron.core", "modules_to_save": None,
    "monteclora_config": None, "peft_type": "LORA", "peft_version": "0.21.2", "qalora_group_size": 16, "r": 8,
    "rank_pattern": {}, "revision": None, "target_modules": ["q_proj", "v_proj"], "target_parameters": None,
    "task_type": "CAUSAL_LM", "trainable_token_indices": None, "use_bdlora": None, "use_dora": False,
    "use_qalora": False, "use_rslora": False, "velora_config": None,
}
LAYERS, HIDDEN, RANK = 2, 64, 8


def _tensors() -> dict[str, torch.Tensor]:
    """The adapter's weights under the names peft saves them (no adapter name): lora_B non-zero, as after training."""
    gen = torch.Generator().manual_seed(0)
    out = {}
    for n in range(LAYERS):
        for proj in ("q_proj", "v_proj"):
            prefix = f"base_model.model.model.layers.{n}.self_attn.{proj}."
            out[prefix + "lora_A.weight"] = torch.randn(RANK, HIDDEN, generator=gen) * 0.02
            out[prefix + "lora_B.weight"] = torch.randn(HIDDEN, RANK, generator=gen) * 0.02
    return out


def write(folder: str = "lora-adapter") -> str:
    """The adapter folder (in the working directory), as PeftModel.from_pretrained reads it."""
    path = Path(folder)
    path.mkdir(exist_ok=True)
    (path / "adapter_config.json").write_text(json.dumps(CONFIG, indent=2, sort_keys=True))
    save_file(_tensors(), str(path / "adapter_model.safetensors"), metadata={"format": "pt"})
    return str(path)
