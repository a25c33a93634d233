"""kb/apidrift/light.py: the constants of transformers' per-model modules (read without a parse) in the history."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from kb.apidrift import light
from kb.apidrift.history import targets, unpack
from kb.apidrift.ranges import decode
from kb.knowledge.tables import api_history_path

WHEELS = Path.home() / ".cache" / "kb" / "apidrift" / "wheels"


def test_assigned_names_reads_column_zero_assignments_only() -> None:
    source = (
        "import torch\n"
        "LLAMA_ATTENTION_CLASSES = {\n    'eager': LlamaAttention,\n}\n"
        "VOCAB: dict[str, str] = {}\n"
        "logger = logging.get_logger(__name__)\n"
        "_CONFIG_FOR_DOC = 'LlamaConfig'\n"
        "if x == 1:\n    INDENTED = 2\n"
        "COMPARED == 3\n"
        "obj.attr = 4\n"
        'DOC = r"""\n'
        "model = AutoModel.from_pretrained('x')\n"
        '"""\n'
        "LAST = 5"
    )
    assert light.assigned_names(source) == {"LLAMA_ATTENTION_CLASSES", "VOCAB", "logger", "DOC", "LAST"}


def test_add_constants_fills_patch_records_from_their_minor_without_sharing_dicts() -> None:
    shared = {"transformers.models.llama.modeling_llama": ["LlamaModel"]}
    records = [
        {"version": "4.47.0", "exports": shared},  # a probed patch without a wheel: takes 4.47.1's scan
        {"version": "4.47.1", "exports": shared},
        {"version": "4.48.0", "exports": {"transformers.models.llama.modeling_llama": ["LlamaModel"]}},
    ]
    scans = {"4.47.1": {"transformers.models.llama.modeling_llama": ["LLAMA_ATTENTION_CLASSES"]},
             "4.48.0": {"transformers.models.llama.modeling_llama": ["logger"],
                        "transformers.models.gone.modeling_gone": ["X"]}}
    spec = {"skip_modules_detail": ["transformers.models."]}

    def fake_scan(lib, version, spec, wheel, cache=None):  # noqa: ANN001, ANN202
        return scans.get(version)

    original = light.cached_scan
    light.cached_scan = fake_scan
    try:
        added = light.add_constants("transformers", spec, records, lambda v: None)
    finally:
        light.cached_scan = original
    module = "transformers.models.llama.modeling_llama"
    assert records[0]["exports"][module] == ["LLAMA_ATTENTION_CLASSES", "LlamaModel"]
    assert records[1]["exports"][module] == ["LLAMA_ATTENTION_CLASSES", "LlamaModel"]
    assert records[2]["exports"][module] == ["LlamaModel", "logger"]
    assert "transformers.models.gone.modeling_gone" not in records[2]["exports"]  # not a module of that release
    assert shared == {module: ["LlamaModel"]}  # the records' dicts were replaced, not mutated
    assert added == 3
    assert light.add_constants("peft", {}, records, lambda v: None) == 0  # no light modules: nothing read


@pytest.mark.skipif(not (WHEELS / "transformers-4.48.0-py3-none-any.whl").exists(), reason="wheel not cached")
def test_scan_of_real_wheels_sees_the_removal_of_llama_attention_classes() -> None:
    spec = targets()["transformers"]
    module = "transformers.models.llama.modeling_llama"
    before = light.scan("transformers", spec, WHEELS / "transformers-4.47.1-py3-none-any.whl")
    after = light.scan("transformers", spec, WHEELS / "transformers-4.48.0-py3-none-any.whl")
    assert "LLAMA_ATTENTION_CLASSES" in before[module]
    assert "LLAMA_ATTENTION_CLASSES" not in after.get(module, [])
    # detailed modules are parsed by exports.py already: the scan leaves them out
    assert "transformers.models.llama.configuration_llama" not in before


def test_shipped_history_records_llama_attention_classes_until_4_47_1() -> None:
    with gzip.open(api_history_path(), "rt", encoding="utf-8") as f:
        entry = unpack(json.load(f)["libraries"]["transformers"])
    versions = entry["versions"]
    having = [versions[i] for i in sorted(i for r, names in entry["exports"]["transformers.models.llama.modeling_llama"].items()
                                          if "LLAMA_ATTENTION_CLASSES" in names.split() for i in decode(r))]
    assert having and having[-1] == "4.47.1"
    assert "4.48.0" in versions and "4.48.0" not in having
