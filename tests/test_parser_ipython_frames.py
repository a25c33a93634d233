"""IPython's frames read as Python's own: the function's name without its class, its enclosing functions or its
arguments, and a cell's frame inside a function ("Cell In[10], line 2, in tokenize(batch)") kept.

IPython 8 writes "File .../arrow_dataset.py:3156, in Dataset._map_single(shard, function, ...)" where Python writes
"in _map_single"; frame rules (tables/priors.toml [[frame]], signatures' frames) are written against Python's form.
"""

from __future__ import annotations

from kb.diagnose.diagnosis import diagnose_lines
from kb.knowledge.registry import load_knowledge

SP = "/usr/local/lib/python3.10/dist-packages"
NOTEBOOK = f"""---------------------------------------------------------------------------
NameError                                 Traceback (most recent call last)
Cell In[12], line 3
      1 from datasets import load_dataset
----> 3 ds = ds.map(tokenize, batched=True, num_proc=4)

File {SP}/datasets/arrow_dataset.py:3156, in Dataset._map_single(shard, function, with_indices, batched, batch_size)
   3154 if batched:
-> 3156     batch = apply_function_on_filtered_inputs(batch, indices)

File {SP}/datasets/arrow_dataset.py:3024, in Dataset._map_single.<locals>.apply_function_on_filtered_inputs(pa_inputs, indices)
   3022 processed_inputs = function(*fn_args, **additional_args, **fn_kwargs)

Cell In[10], line 2, in tokenize(batch)
      1 def tokenize(batch):
----> 2     return tokenizer(batch["text"], truncation=True)

NameError: name 'tokenizer' is not defined
"""


def _frames(text: str) -> list[tuple[str, int, str]]:
    errors = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).errors
    assert len(errors) == 1, errors
    return [(f.file, f.line, f.function) for f in errors[0].frames]


def test_functions_are_named_as_python_names_them() -> None:
    assert _frames(NOTEBOOK) == [
        ("<notebook cell>", 3, "<module>"),
        (f"{SP}/datasets/arrow_dataset.py", 3156, "_map_single"),
        (f"{SP}/datasets/arrow_dataset.py", 3024, "apply_function_on_filtered_inputs"),
        ("<notebook cell>", 2, "tokenize"),
    ]


def test_a_frame_without_a_function_or_arguments_is_unchanged() -> None:
    text = (
        "---------------------------------------------------------------------------\n"
        "ValueError                                Traceback (most recent call last)\n"
        "File ~/train.py:165\n"
        "----> 165 main()\n"
        "File ~/train.py:88, in main\n"
        "---> 88 raise ValueError('bad')\n"
        "ValueError: bad\n"
    )
    assert _frames(text) == [("~/train.py", 165, "<module>"), ("~/train.py", 88, "main")]
