"""Turn 45 (drift45): classes of drift-65's and drift-68's misses (issue #25).

A torch module object saved whole by an older release and run by a newer one: "'GELU' object has no attribute
'approximate'" (drift-65 DocTamper#83, SlimSAM#1, ...), "'Upsample' object has no attribute 'recompute_scale_factor'"
(drift-68 Impulse#10, ...). The code is right for neither release alone: the forward of the loading release reads an
attribute the saving release's __init__ did not set (kb/apidrift/module_state.py,
tables/api-history-module-state.json.gz)."""

from __future__ import annotations

import kb
from drift_support import top_match
from kb.apidrift import module_state


def _top(text: str) -> dict:
    answer = top_match(text)
    assert answer is not None, text
    return answer


def test_forward_reads_tells_attributes_read_from_methods_called_and_defaults() -> None:
    source = (
        "class GELU(Module):\n"
        "    def __init__(self, approximate='none'):\n"
        "        self.approximate = approximate\n"
        "    def forward(self, x):\n"
        "        y = self._helper(x)\n"
        "        return F.gelu(x, approximate=self.approximate) + self.scale(y) + getattr(self, 'opt', 0)\n"
    )
    read, assigned = module_state.forward_reads(source)["GELU"]
    assert read == {"approximate"}  # not self.scale (a method it calls), not _helper, not getattr's string
    assert assigned == {"approximate"}


def test_the_table_dates_when_forward_began_to_read_the_attribute() -> None:
    # from the cached torch wheels' torch/nn/modules (zip greps agree: drift-65 and drift-68 labels)
    assert module_state.first_read("GELU", "approximate") == ("1.12.0", "1.12.0")
    assert module_state.first_read("Upsample", "recompute_scale_factor")[0] == "1.11.0"
    assert module_state.first_read("GELU", "inplace") is None


def test_a_pickled_module_missing_an_attribute_the_newer_forward_reads_is_api_drift_with_the_state_dict_fix() -> None:
    top = _top("AttributeError: 'GELU' object has no attribute 'approximate'\n")
    assert top["id"] == "api-drift"
    drift = top["drift"]
    assert drift["subject"] == "torch.nn.GELU.approximate" and drift["added_in"] == "1.12.0"
    assert any("state_dict" in fix for fix in drift["fixes"])
    assert any("saved whole" in fact for fact in drift["facts"])


def test_an_installed_torch_older_than_the_reading_release_is_not_read_as_a_pickled_module() -> None:
    # torch 1.10's Upsample.forward does not read recompute_scale_factor: the error is not this drift (the installed
    # torch comes from `kb diagnose --env`; a log's torch version is not read)
    from kb.apidrift.answer import answer

    fields = {"cls": "Upsample", "name": "recompute_scale_factor", "nearby": "",
              "said": "'Upsample' object has no attribute 'recompute_scale_factor'"}
    assert answer("object-attribute", dict(fields), {}, {"torch": "1.10.1"}) is None
    newer = answer("object-attribute", dict(fields), {}, {"torch": "2.1.0"})
    assert newer["subject"] == "torch.nn.Upsample.recompute_scale_factor" and newer["installed"] == "2.1.0"


def test_a_title_that_lost_the_words_module_before_a_covered_package_is_read_as_its_attribute() -> None:
    # drift-65 DMD#17: "<prose>torch' has no attribute 'frombuffer'<prose>" above a traceback cut in safetensors was
    # answered checkpoint-io by the raising frame; the lost "module '" is put back for a covered library's package only
    from kb.diagnose.drift import _paraphrased_module

    assert _paraphrased_module(["Is it 1.9.0? torch' has no attribute 'frombuffer' appears after 1.10"]) == \
        "module 'torch' has no attribute 'frombuffer'"
    assert _paraphrased_module(["mylib' has no attribute 'frombuffer'"]) == ""  # not a covered library
    assert _paraphrased_module(["the 'torch' has no attribute 'x'"]) == ""  # quoted on both sides: not this form
    text = ("Is it 1.9.0? torch' has no attribute 'frombuffer' appears after 1.10\n"
            '  File "/home/u/env/lib/python3.8/site-packages/transformers/modeling_utils.py", line 562, in load_state_dict\n'
            "    return safe_load_file(checkpoint_file)\n"
            '  File "/home/u/env/lib/python3.8/site-packages/safetensors/torch.py", line 315\n')
    top = _top(text)
    assert top["id"] == "api-drift" and top["drift"]["added_in"] == "1.10.0"


def test_a_comment_after_an_open_parenthesis_of_an_import_does_not_hide_its_private_names() -> None:
    # torch 2.10.0's torch/distributed/__init__.py: "from .distributed_c10d import (  # pyrefly: ignore [deprecated]"
    from kb.apidrift.private import bound_names

    source = ("if is_available():\n"
              "    from .distributed_c10d import (  # pyrefly: ignore  # deprecated; ignore [deprecated]\n"
              "        _all_gather_base,\n"
              "        _reduce_scatter_base,  # a comment\n"
              "    )\n")
    assert {"_all_gather_base", "_reduce_scatter_base"} <= bound_names(source)


def test_torch_is_scanned_for_private_names_in_its_scoped_modules_only() -> None:
    from kb.apidrift.private import in_scope, private_states

    assert in_scope("torch", "torch.distributed.distributed_c10d") and in_scope("torch", "torch")
    assert not in_scope("torch", "torch._inductor.codegen") and in_scope("peft", "peft.anything")
    versions, states = private_states("torch", "torch.distributed", "_reduce_scatter_base")
    assert states[versions.index("1.9.1")] == "A" and states[versions.index("1.10.0")] == "P"
    assert "A" not in states[versions.index("1.10.0"):]  # bound to the latest scanned release


def test_a_private_torch_name_missing_from_an_older_torch_is_dated() -> None:
    # drift-66 apex#1529 / ColossalAI#2916 (_all_gather_base, torch 1.9.0) and drift-68 pytorch-MOAT#2 and its
    # neighbours (_reduce_scatter_base, torch 1.10.0): the answer said it could not date a private name
    for name, release in (("_reduce_scatter_base", "1.10.0"), ("_all_gather_base", "1.9.0")):
        top = _top(f"AttributeError: module 'torch.distributed' has no attribute '{name}'\n")
        assert top["id"] == "api-drift" and top["drift"]["added_in"] == release, name


def test_a_removed_function_kept_as_a_raising_stub_is_dated_and_names_its_replacement() -> None:
    # drift-66 pytorch_geometric#7670 (torch.solve, a stub from 1.12.0) and anfis-pytorch#6 (torch.lstsq, 1.13.0): the
    # history's exports keep the name, so the answer had no release
    from kb.apidrift.module_state import removed_stubs
    from kb.diagnose.drift import drift_section

    source = ("def solve(input, A, *, out=None):\n"
              "    raise RuntimeError(\n"
              "        'This function was deprecated since version 1.9 and is now removed. '\n"
              "        'Please use the `torch.linalg.solve` function instead.')\n"
              "def kept(x):\n    return x\n")
    assert removed_stubs(source) == {"solve": "torch.linalg.solve"}
    said = "This function was deprecated since version 1.9 and is now removed. "
    lstsq = drift_section("RuntimeError", said + "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq`.")
    assert lstsq["subject"] == "torch.lstsq" and lstsq["removed_in"] == "1.13.0"
    assert lstsq["renamed_to"] == "torch.linalg.lstsq"
    solve = drift_section("RuntimeError", said + "Please use the `torch.linalg.solve` function instead.")
    assert solve["subject"] == "torch.solve" and solve["removed_in"] == "1.12.0"


def test_a_keyword_of_an_untracked_torch_class_dated_from_its_wheels_is_read_when_the_code_names_the_class() -> None:
    # drift-68 IRRA#4 / VoxSeT#2 (nn.MultiheadAttention(batch_first=), torch 1.9.0) and PedRec#1 (meshgrid(indexing=),
    # torch 1.10.0): [[param]] rows of tables/api-history-before.toml, read only where the report names the callable
    mha = ('  File "model/build.py", line 27, in __init__\n'
           "    self.cross_attn = nn.MultiheadAttention(self.embed_dim, 8, batch_first=True)\n"
           "TypeError: __init__() got an unexpected keyword argument 'batch_first'\n")
    top = _top("Traceback (most recent call last):\n" + mha)
    assert top["drift"]["subject"] == "torch.nn.MultiheadAttention(batch_first=...)"
    assert top["drift"]["added_in"] == "1.9.0"
    title = _top("run demo error meshgrid() got an unexpected keyword argument 'indexing'\n")
    assert title["drift"]["added_in"] == "1.10.0"


def test_the_keyword_alone_is_not_read_as_an_untracked_class_a_row_dates() -> None:
    # pytorch-crf's CRF(batch_first=) refuses the same keyword on its old releases: not torch's change
    crf = ("Traceback (most recent call last):\n"
           '  File "model.py", line 12, in __init__\n'
           "    self.crf = CRF(num_tags, batch_first=True)\n"
           "TypeError: __init__() got an unexpected keyword argument 'batch_first'\n")
    answers = kb.diagnose_text(crf).document["matches"]
    assert not any("MultiheadAttention" in ((a.get("drift") or {}).get("subject") or "") for a in answers)
