"""Report shapes from notebooks, and Python's messages standing without their type (issue #24, second round).

Five classes: (a) Jupyter/IPython/Colab tracebacks, whose header names the class even when the excerpt is cut before
the exception line, coloured or not; (b) a notebook's error output pasted as its JSON (nbformat's "ename"/"evalue"/
"traceback", VS Code's "name"/"message"/"stack"); (c) a traceback without its header whose frames and exception line
are indented alike; (d) one of Python's messages standing alone (a title), read as the type it implies when nothing in
the input names a type; (e) classes of compiled extensions' modules (``pyarrow.lib.ArrowInvalid``). Each example
follows the shape of a real report (its URL beside it); where the corpus holds the report (corpus/*.jsonl) the record
itself is read. Texts written here follow the reports' shapes; they are not copied from them.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.errors import ParsedError
from kb.diagnose.textclean import clean_line
from kb.knowledge.registry import load_knowledge
from parse_support import cpu_seconds_per_mb, errors
from corpus_support import record as corpus_record

KNOWLEDGE = load_knowledge()
ROOT = Path(__file__).resolve().parent.parent
DEV = ROOT / "tests" / "fixtures" / "diagnose" / "dev"
SITE = "/opt/conda/lib/python3.10/site-packages"
RULER = "-" * 75


def top(text: str) -> tuple[str, str] | None:
    answers = diagnose_lines(text.splitlines(keepends=True), KNOWLEDGE).answers
    return (answers[0].kind, answers[0].match.entry.key) if answers else None


def record(report_id: str) -> str:
    """A corpus record's error output, else its title (skipped when the corpus lacks it)."""
    return corpus_record(report_id, title_when_no_error=True)


def shape(found: list[ParsedError]) -> list[tuple[str, str, int, bool]]:
    return [(e.type, e.message, len(e.frames), e.in_traceback) for e in found]


# -- (a) IPython tracebacks ------------------------------------------------------------------------------------------

# https://github.com/findalexli/mllm-dpo/issues/2 : "ArrowInvalid    Traceback (most recent call last)" then, after
# Colab's "17 frames", "ArrowInvalid: JSON parse error ...": a class without a suffix that only the header names.
def test_header_names_a_class_without_a_suffix_in_the_corpus_record() -> None:
    found = errors(record("gh:findalexli/mllm-dpo#2"))
    assert found[0].type == "ArrowInvalid" and found[0].in_traceback and found[0].frames
    assert found[0].message.startswith("JSON parse error: Column() changed from object to array")


CUT_OOM = f"""{RULER}
OutOfMemoryError                          Traceback (most recent call last)
Cell In[12], line 3
      1 trainer = make_trainer()
----> 3 trainer.train()

File {SITE}/transformers/trainer.py:1553, in Trainer.train(self, resume_from_checkpoint)
-> 1553 return inner_training_loop(
"""


def test_cut_ipython_traceback_takes_its_type_from_the_header() -> None:
    assert shape(errors(CUT_OOM)) == [("OutOfMemoryError", "", 2, True)]
    assert top(CUT_OOM) == ("family", "cuda-oom")


def test_header_with_a_module_qualified_class() -> None:
    text = CUT_OOM.replace("OutOfMemoryError                          ", "torch.cuda.OutOfMemoryError               ")
    assert [(e.type, e.short_type) for e in errors(text)] == [("torch.cuda.OutOfMemoryError", "OutOfMemoryError")]


def test_header_with_a_long_name_glued_to_its_words() -> None:
    # IPython right-justifies "Traceback (most recent call last)" to column 75: a name of 42 characters or more has no
    # space after it
    name = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError"
    text = f"{RULER}\n{name}Traceback (most recent call last)\nCell In[2], line 1\n----> 1 main()\n"
    assert [e.type for e in errors(text)] == [name]


def test_header_needs_ipythons_padding() -> None:
    # one space after a short word is prose, not IPython's header
    assert not errors("see the Traceback (most recent call last)\n")
    assert not [e for e in errors("and Traceback (most recent call last)\nfoo\n") if e.type]


def test_coloured_header_with_and_without_its_escape_character() -> None:
    coloured = CUT_OOM.replace("OutOfMemoryError   ", "\x1b[0;31mOutOfMemoryError\x1b[0m   ", 1)
    assert shape(errors(coloured)) == [("OutOfMemoryError", "", 2, True)]
    lost = CUT_OOM.replace("OutOfMemoryError   ", "[0;31mOutOfMemoryError[0m   ", 1).replace(RULER, f"[0;31m{RULER}[0m")
    assert shape(errors(lost)) == [("OutOfMemoryError", "", 2, True)]
    assert clean_line("tensor [0;1] and [3m")[0] == "tensor [0;1] and [3m"  # no reset, no text escape: left alone


# Frame shapes: https://github.com/unslothai/unsloth/issues/3657 (Kaggle: "/tmp/ipykernel_47/115535789.py in <cell line:
# 0>()"), https://github.com/huggingface/transformers/issues/25236 (Colab pasted with markdown links: "[<ipython-input-25-
# c52c20b5cf4b>](https://localhost:8080/#) in <cell line: 14>()"), https://github.com/unslothai/unsloth/issues/3516
# (Jupyter 8, a module's top level: "File c:\...\unsloth\__init__.py:91"), https://github.com/huggingface/transformers/
# issues/36051 (VS Code: "Cell In[4], [line 74](vscode-notebook-cell:?execution_count=4&line=74)"). Each used to end the
# traceback at its first frame, and the header's type was lost with it.
@pytest.mark.parametrize(("report", "expected"), [
    ("gh:unslothai/unsloth#3657", ("IndexError", 3)),
    ("gh:huggingface/transformers#25236", ("NotImplementedError", 3)),
    ("gh:unslothai/unsloth#3516", ("NotImplementedError", 2)),
    ("gh:huggingface/transformers#36051", ("RuntimeError", 1)),
])
def test_notebook_frames_in_the_corpus_records(report: str, expected: tuple[str, int]) -> None:
    found = errors(record(report))
    assert [(e.type, len(e.frames)) for e in found] == [expected]
    assert found[0].in_traceback


def test_colab_markdown_link_frame_keeps_its_file() -> None:
    found = errors(record("gh:huggingface/transformers#25236"))
    assert [f.file for f in found[0].frames][:2] == [
        "<ipython-input-25-c52c20b5cf4b>", "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py"]


# -- (b) a notebook's JSON error output --------------------------------------------------------------------------------

# nbformat's error output, pasted from an .ipynb file (keys sorted; the traceback array's elements coloured, written with
# JSON's escapes). Shaped like the outputs quoted in e.g. https://github.com/huggingface/peft/issues/1239 's notebook.
OOM_MESSAGE = "CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 14.75 GiB total capacity; 12.10 GiB already allocated)"
NOTEBOOK = (
    '    {\n     "ename": "OutOfMemoryError",\n'
    f'     "evalue": "{OOM_MESSAGE}",\n'
    '     "output_type": "error",\n     "traceback": [\n'
    f'      "\\u001b[0;31m{RULER}\\u001b[0m",\n'
    '      "\\u001b[0;31mOutOfMemoryError\\u001b[0m                          Traceback (most recent call last)",\n'
    '      "Cell \\u001b[0;32mIn[7], line 2\\u001b[0m\\n\\u001b[1;32m      1\\u001b[0m trainer \\u001b[38;5;241m=\\u001b[39m '
    'make()\\n\\u001b[0;32m----> 2\\u001b[0m \\u001b[43mtrainer\\u001b[49m\\u001b[38;5;241;43m.\\u001b[39;49m\\u001b[43mtrain'
    '\\u001b[49m\\u001b[43m(\\u001b[49m\\u001b[43m)\\u001b[49m\\n",\n'
    f'      "File \\u001b[0;32m{SITE}/torch/nn/modules/module.py:1501\\u001b[0m, in \\u001b[0;36mModule._call_impl'
    '\\u001b[0;34m(self, *args, **kwargs)\\u001b[0m\\n\\u001b[1;32m   1500\\u001b[0m forward_call(\\u001b[38;5;241m*\\u001b[39margs)\\n",\n'
    f'      "\\u001b[0;31mOutOfMemoryError\\u001b[0m: {OOM_MESSAGE}"\n'
    '     ]\n    }\n'
)


def test_notebook_json_output_is_one_error_with_its_frames() -> None:
    found = errors(NOTEBOOK)
    assert shape(found) == [("OutOfMemoryError", OOM_MESSAGE, 2, True)]
    assert [(f.file, f.line, f.code) for f in found[0].frames] == [
        ("<notebook cell>", 2, "trainer.train()"), (f"{SITE}/torch/nn/modules/module.py", 1501, "")]
    assert top(NOTEBOOK) == ("family", "cuda-oom")


def test_notebook_json_cut_before_its_traceback_ends_keeps_ename_and_evalue() -> None:
    cut = "".join(NOTEBOOK.splitlines(keepends=True)[:7])
    assert shape(errors(cut)) == [("OutOfMemoryError", OOM_MESSAGE, 0, False)]  # (the cut header adds nothing to it)
    cut = "".join(NOTEBOOK.splitlines(keepends=True)[:9])  # cut after the library's frame: the frames join it
    assert shape(errors(cut)) == [("OutOfMemoryError", OOM_MESSAGE, 2, True)]


# VS Code's "Copy output" of an error: https://github.com/huggingface/trl/issues/1007 and
# https://github.com/huggingface/transformers/issues/31545 ({"name": "NameError", "message": "name 'tokenizer' is not
# defined", "stack": ...}). The message used to be read as typeless text ending in '",'.
def test_vscode_name_and_message_in_the_corpus_records() -> None:
    assert shape(errors(record("gh:huggingface/transformers#31545"))) == [
        ("NameError", "name 'tokenizer' is not defined", 0, False)]
    # the stack, cut, is read by its header and its frames join the error
    assert shape(errors(record("gh:huggingface/trl#1007"))) == [("IndexError", "list index out of range", 3, True)]


def test_a_name_member_of_other_json_is_no_error() -> None:
    assert not [e for e in errors('{\n  "name": "ValueError",\n  "version": "1.0"\n}\n') if e.type]


# -- (c) a traceback without its header, indented alike ------------------------------------------------------------

def test_headerless_indented_traceback_in_the_dev_fixture() -> None:
    # tests/fixtures/diagnose/dev/drift-14-Soup-691.txt (https://github.com/MakazhanAlpamys/Soup/issues/691 ): frames and
    # the exception line at four spaces, the code at six; the exception line used to be read as code
    text = (DEV / "drift-14-Soup-691.txt").read_text(encoding="utf-8")
    found = [e for e in errors(text) if e.type]
    assert shape(found) == [("TypeError", "SFTTrainer.__init__() got an unexpected keyword argument 'packing'", 1, True)]
    assert found[0].frames[0].code == "self.trainer = SFTTrainer(**trainer_kwargs)"


def test_code_deeper_than_the_frames_stays_code() -> None:
    text = ('    File "/x/train.py", line 3, in main\n      RuntimeError: not an exception line, the code\n'
            "    ValueError: the exception line\n")
    assert shape([e for e in errors(text) if e.type]) == [("ValueError", "the exception line", 1, True)]


# -- (d) Python's messages standing alone ------------------------------------------------------------------------------

def test_untyped_attribute_message_in_the_dev_fixture() -> None:
    # tests/fixtures/diagnose/dev/drift-35-MetaphorFrame-10.txt: "Dataset object has no attribute 'add_column'" (a
    # title): read as Python's AttributeError, so the API history dates Dataset.add_column
    text = (DEV / "drift-35-MetaphorFrame-10.txt").read_text(encoding="utf-8")
    found = [e for e in errors(text) if e.type]
    assert [(e.type, e.message) for e in found] == [("AttributeError", "'Dataset' object has no attribute 'add_column'")]
    answers = diagnose_lines(text.splitlines(keepends=True), KNOWLEDGE).answers
    assert answers and answers[0].match.entry.key == "api-drift" and answers[0].drift is not None
    assert "1.6.2" in json.dumps(answers[0].drift)


# Titles of https://github.com/huggingface/peft/issues/1583 and https://github.com/huggingface/trl/issues/2314 .
@pytest.mark.parametrize(("report", "implied"), [
    ("gh:huggingface/peft#1583", "ImportError"),
    ("gh:huggingface/trl#2314", "TypeError"),
])
def test_untyped_titles_in_the_corpus_records(report: str, implied: str) -> None:
    assert [e.type for e in errors(record(report))] == [implied]


@pytest.mark.parametrize(("text", "implied"), [
    ("No module named 'flash_attn'", "ModuleNotFoundError"),
    ("module 'torch' has no attribute 'compiler'", "AttributeError"),
    ("'LlamaForCausalLM' object has no attribute 'generation_config'", "AttributeError"),
    ("cannot import name 'BitsAndBytesConfig' from 'transformers' (/x/transformers/__init__.py)", "ImportError"),
    ("__init__() got an unexpected keyword argument 'use_flash_attention_2'", "TypeError"),
])
def test_python_message_shapes_imply_their_type(text: str, implied: str) -> None:
    assert [e.type for e in errors(text + "\n")] == [implied]


@pytest.mark.parametrize("text", [
    "my Dataset object has no attribute 'add_column' when I run it",  # a phrase in a sentence: no exact shape
    "why is there No module named 'x' here?",
    "dataset object has no attribute 'add_column'",  # an unquoted class is a capitalised name
])
def test_other_text_is_not_typed(text: str) -> None:
    assert not [e for e in errors(text + "\n") if e.type]


def test_a_typed_error_elsewhere_leaves_the_bare_message_untyped() -> None:
    text = "No module named 'flash_attn'\nValueError: something else happened\n"
    assert [(e.type, e.message) for e in errors(text)] == [("", "No module named 'flash_attn'"),
                                                           ("ValueError", "something else happened")]


# -- (e) classes of compiled extensions' modules -----------------------------------------------------------------------

# https://github.com/huggingface/datasets/issues/6315 : pytest's "E   pyarrow.lib.ArrowInvalid: JSON parse error ..."
def test_extension_module_classes_are_typed() -> None:
    found = errors(record("gh:huggingface/datasets#6315"))
    assert (found[0].type, found[0].message) == ("pyarrow.lib.ArrowInvalid", "JSON parse error: Invalid value. in row 0")
    assert [e.type for e in errors("torch._C._LinAlgError: linalg.cholesky: The factorization could not be completed\n")] \
        == ["torch._C._LinAlgError"]
    assert not [e for e in errors("see pyarrow.lib.Table: the table class\n".replace("Table", "table")) if e.type]


# -- linear time on hostile lines of the new shapes -----------------------------------------------------------------

HOSTILE = [
    "a." * 30_000 + "Traceback (most recent call last)", "a" * 60_000 + "  Traceback (most recent call last)",
    "[0m" + "[1;" * 20_000, "\\u001b[" + "0;" * 30_000, '"' + "\\u001b[0m" * 8_000 + '",',
    "'" + "a" * 60_000 + " object has no attribute '", "A" * 60_000 + " object has no attribute 'x'",
    '"ename": "' + "a" * 60_000, '"name": "' + "a." * 30_000 + '",', "File x" + "\\n " * 20_000,
    "cannot import name '" + "a" * 60_000, "x.lib." * 10_000 + "A:", "Cell In[1], [line 1](" + "(" * 60_000,
]


def test_new_shapes_take_linear_time() -> None:
    """Each hostile line of about 60 KiB, 16 times (about 1 MB per shape): under 3 CPU seconds per MB."""
    slow = []
    for line in HOSTILE:
        per_mb = cpu_seconds_per_mb([line + "\n"] * 16)
        if per_mb > 3.0:
            slow.append((round(per_mb, 2), line[:40]))
    assert not slow, slow
