"""The API-history builder on a small wheel written here: lazy tables, inheritance, stated renames."""

from __future__ import annotations

import zipfile
from pathlib import Path

from kb.apidrift import deprecations, transformers_facts
from kb.apidrift.exports import ModuleIndex
from kb.apidrift.history import History
from kb.apidrift.merge import merge
from kb.apidrift.params import Resolver
from kb.apidrift.ranges import decode, encode
from kb.apidrift.wheel import Wheel

FILES_V1 = {
    "trl/__init__.py": '''
from typing import TYPE_CHECKING
_import_structure = {"trainer": ["SFTTrainer", "SFTConfig"], "core": []}
_import_structure["utils"] = ["helper"]
_import_structure["utils"].extend(["old_helper"])
if TYPE_CHECKING:
    from .trainer import SFTTrainer, SFTConfig
''',
    "trl/core.py": "def flatten(x):\n    return x\n",
    "trl/utils.py": '''
import warnings
def helper(a, b=1):
    return a
def old_helper(a):
    warnings.warn("`old_helper` is deprecated and will be removed in v2. Use `helper` instead.", FutureWarning)
    return helper(a)
''',
    "trl/trainer/__init__.py": "from .sft import *\n",
    "trl/trainer/sft.py": '''
from dataclasses import dataclass, field
from transformers import Trainer, TrainingArguments
from ..utils.deprecation import deprecate_kwarg
__all__ = ["SFTTrainer", "SFTConfig"]

@dataclass
class SFTConfig(TrainingArguments):
    max_seq_length: int = 1024
    packing: bool = False
    _private: int = field(default=0, init=False)

class SFTTrainer(Trainer):
    @deprecate_kwarg("tokenizer", new_name="processing_class", version="0.16")
    def __init__(self, model, args=None, processing_class=None, max_seq_length=None, **kwargs):
        if max_seq_length is not None:
            raise ValueError("The `max_seq_length` argument is deprecated, use `SFTConfig.max_seq_length` instead.")
        super().__init__(model, args, **kwargs)
''',
}

FILES_V2 = {
    **FILES_V1,
    "trl/trainer/sft.py": FILES_V1["trl/trainer/sft.py"]
    .replace("max_seq_length: int = 1024", "max_length: int = 1024")
    .replace(", max_seq_length=None, **kwargs):", ", **kwargs):")
    .replace('''        if max_seq_length is not None:
            raise ValueError("The `max_seq_length` argument is deprecated, use `SFTConfig.max_seq_length` instead.")
''', ""),
}

TRANSFORMERS = {
    "transformers/__init__.py": "from .trainer import Trainer, TrainingArguments\n",
    "transformers/trainer.py": '''
from dataclasses import dataclass
@dataclass
class TrainingArguments:
    output_dir: str = None
    eval_strategy: str = "no"
class Trainer:
    def __init__(self, model=None, args=None, data_collator=None):
        pass
''',
    "transformers/models/auto/configuration_auto.py": '''
from collections import OrderedDict
CONFIG_MAPPING_NAMES = OrderedDict([("llama", "LlamaConfig"), ("qwen2", "Qwen2Config")])
CONFIG_MAPPING_NAMES.update({"gemma3": "Gemma3Config"})
''',
}


def _wheel(tmp_path: Path, name: str, files: dict[str, str]) -> Path:
    path = tmp_path / name
    with zipfile.ZipFile(path, "w") as z:
        for file, text in files.items():
            z.writestr(file, text)
    return path


def _release(tmp_path: Path, lib: str, version: str, files: dict[str, str], built: str) -> dict:
    wheel = Wheel(_wheel(tmp_path, f"{lib}-{version}-py3-none-any.whl", files), lib)
    index = ModuleIndex(wheel)
    resolver = Resolver(index)
    params = {}
    for path in (f"{lib}.SFTTrainer", f"{lib}.SFTConfig", f"{lib}.Trainer", f"{lib}.TrainingArguments"):
        sig = resolver.signature(path)
        if sig is not None:
            params[path] = {"params": sig.params, "external": sig.external, "kind": sig.kind}
    public = {"trl.trainer.sft.SFTTrainer": "trl.SFTTrainer", "trl.trainer.sft.SFTConfig": "trl.SFTConfig"}
    facts = [f for m in wheel.modules() for f in deprecations.facts(wheel.tree(m), m, public)]
    return {"library": lib, "version": version, "built": built, "modules": wheel.modules(),
            "exports": {m: sorted(index.exports(m)) for m in wheel.modules()}, "params": params, "facts": facts,
            "model_types": transformers_facts.model_types(wheel) if lib == "transformers" else [],
            "rope": {}, "parse_failures": []}


def test_exports_read_lazy_tables_and_star_imports(tmp_path):
    wheel = Wheel(_wheel(tmp_path, "trl-1.0.0-py3-none-any.whl", FILES_V1), "trl")
    index = ModuleIndex(wheel)
    top = index.exports("trl")
    assert {"SFTTrainer", "SFTConfig", "helper", "old_helper", "core", "trainer", "utils"} <= top
    assert "TYPE_CHECKING" in top and "_import_structure" not in top
    assert index.exports("trl.trainer") >= {"SFTTrainer", "SFTConfig"}
    assert index.resolve("trl", "SFTConfig")[:2] == ("def", "trl.trainer.sft")


def test_params_follow_bases_and_report_other_libraries(tmp_path):
    resolver = Resolver(ModuleIndex(Wheel(_wheel(tmp_path, "trl-1.0.0-py3-none-any.whl", FILES_V1), "trl")))
    config = resolver.signature("trl.SFTConfig")
    assert config.params == ["max_seq_length", "packing"]  # init=False field left out
    assert config.external == ["transformers.TrainingArguments"]
    trainer = resolver.signature("trl.SFTTrainer")
    assert trainer.params[:4] == ["model", "args", "processing_class", "max_seq_length"]
    assert "tokenizer" in trainer.params  # still accepted through @deprecate_kwarg
    assert trainer.external == ["transformers.Trainer"]  # **kwargs passed on to transformers' Trainer


def test_merge_resolves_cross_library_bases_and_dates_renames(tmp_path):
    per_version = {
        "transformers": [_release(tmp_path, "transformers", "4.46.0", TRANSFORMERS, "2024-10-01")],
        "trl": [_release(tmp_path, "trl", "0.12.0", FILES_V1, "2024-11-01"),
                _release(tmp_path, "trl", "0.13.0", FILES_V2, "2024-12-01")],
    }
    h = History(merge(per_version))
    assert h.versions("trl") == ["0.12.0", "0.13.0"]
    # the newest release's order; names only older releases had come last
    assert h.params("trl", "trl.SFTConfig", "0.12.0") == ["packing", "output_dir", "eval_strategy", "max_seq_length"]
    assert "max_seq_length" not in h.params("trl", "trl.SFTConfig", "0.13.0")
    assert "data_collator" in h.params("trl", "trl.SFTTrainer", "0.13.0")  # from transformers.Trainer
    assert h.exports("trl", "trl", "0.13.0") >= {"SFTTrainer", "helper"}
    assert h.exports("trl", "trl.nothing", "0.13.0") is None
    assert h.params("trl", "trl.Missing", "0.13.0") is None
    assert h.model_types("4.46.0") == {"llama", "qwen2", "gemma3"}
    renames = {(r["owner"], r["old"]): r for r in h.renames("trl")}
    kwarg = renames[("trl.SFTTrainer", "tokenizer")]
    assert kwarg["new"] == "processing_class" and kwarg["since"] == "0.12.0" and kwarg["until"] is None
    moved = renames[("trl.SFTTrainer", "max_seq_length")]
    assert moved["new"] == "SFTConfig.max_seq_length" and moved["until"] == "0.12.0"
    helper = renames[("trl.utils.old_helper", "old_helper")]
    assert helper["kind"] == "name" and helper["new"] == "helper"


def test_ranges_round_trip():
    for indices in ([], [0], [0, 1, 2, 5, 7, 8], list(range(40))):
        assert decode(encode(indices)) == set(indices)
    assert encode([0, 1, 2, 5, 7, 8]) == "0-2,5,7-8"


def test_a_lazy_module_exports_only_what_its_table_declares(tmp_path):
    files = {**FILES_V1, "trl/__init__.py": FILES_V1["trl/__init__.py"] + (
        "else:\n    import sys\n    from ._lazy import _LazyModule\n"
        "    sys.modules[__name__] = _LazyModule(__name__, globals()['__file__'], _import_structure)\n")}
    index = ModuleIndex(Wheel(_wheel(tmp_path, "trl-1.0.0-py3-none-any.whl", files), "trl"))
    top = index.exports("trl")
    assert {"SFTTrainer", "helper", "old_helper", "core", "utils", "trainer"} <= top
    assert "TYPE_CHECKING" not in top and "sys" not in top


def test_deprecated_decorator_is_a_rename_fact():
    import ast

    tree = ast.parse('''
from typing_extensions import deprecated
@deprecated("This function is deprecated. Use `quantize_4bit` instead.", category=FutureWarning)
def quantize(a):
    return a
''')
    found = deprecations.facts(tree, "bitsandbytes.functional", {})
    assert found == [{"kind": "name", "owner": "bitsandbytes.functional.quantize", "old": "quantize",
                      "new": "quantize_4bit", "message": "This function is deprecated. Use `quantize_4bit` instead."}]
