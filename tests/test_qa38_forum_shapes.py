"""Forum text shapes (kb/diagnose/flatten.py, hooked in kb/diagnose/diagnosis.py): error text as forum posts, pages
and web UIs show it (corpus/reports-qa-34.jsonl, reports-qa-38.jsonl) is read as Python printed it; text that only
looks like one of the shapes is left alone. benchmarks/forum_shapes.py measures the classes over the corpus."""

from __future__ import annotations

import html
import json
import subprocess
import sys
import time

import pytest
from rules_support import SP, tb, top

from kb.diagnose import diagnosis
from kb.diagnose.diagnosis import FORUM_MARKS, diagnose_lines
from kb.diagnose.flatten import MARKS, unfold
from kb.knowledge.registry import load_knowledge

# peft's error for target_modules the model lacks (KB0029's family), raised under get_peft_model
PEFT = tb((f"{SP}/peft/mapping.py", 106, "get_peft_model"), (f"{SP}/peft/tuners/tuners_utils.py", 205, "inject_adapter"),
          error="ValueError: Target modules ['query_key_value'] not found in the base model. Please check the target "
                "modules and try again.")
# torch's OOM under the Trainer's backward
OOM = tb((f"{SP}/transformers/trainer.py", 1555, "train"), (f"{SP}/torch/_tensor.py", 487, "backward"),
         error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
               "14.75 GiB of which 1.06 GiB is free.")


# a config's rope_scaling without "type", decided by transformers' modeling frames (the frame rules: no message words)
ROPE = tb((f"{SP}/transformers/models/llama/modeling_llama.py", 306, "__init__"),
          (f"{SP}/transformers/models/llama/modeling_llama.py", 110, "__init__"), error="KeyError: 'type'")


def flattened(text: str) -> str:
    return " ".join(line.strip() for line in text.splitlines() if line.strip()) + "\n"


def escaped(text: str) -> str:
    return json.dumps(text) + "\n"


def entities(text: str) -> str:
    return html.escape(text, quote=True).replace("\n", "<br>\n")


def ui_prefixed(text: str) -> str:
    return "ERROR train has failed due to an exception:\n" + "".join(f"ERROR {line}\n" for line in text.splitlines())


def diagnosed(text: str):
    return diagnose_lines(text.splitlines(keepends=True), load_knowledge())


@pytest.mark.parametrize("shape", [flattened, escaped, entities, ui_prefixed])
@pytest.mark.parametrize("text,family", [(PEFT, "adapter-config"), (OOM, "cuda-oom"), (ROPE, "model-unsupported")])
def test_each_shape_keeps_the_answer(shape, text: str, family: str) -> None:
    assert top(text)[0] == family  # as pasted
    assert top(shape(text))[0] == family


def test_flattened_traceback_is_split_into_frames_and_the_exception_line() -> None:
    # qa-34's first report: AutoTrain's toast, the traceback on one line, loguru's record after the exception
    line = ('train has failed due to an exception: Traceback (most recent call last): File "/app/env/lib/python3.10/'
            'site-packages/autotrain/trainers/common.py", line 117, in wrapper return func(*args, kwargs) File '
            '"/app/env/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", line 110, in init '
            'self.rope_type = config.rope_scaling.get("rope_type", config.rope_scaling["type"]) KeyError: \'type\' '
            "ERROR | 2024-07-23 20:45:55 | autotrain.trainers.common:wrapper:121 - 'type'")
    assert unfold([line]) == [
        "train has failed due to an exception:",
        "Traceback (most recent call last):",
        '  File "/app/env/lib/python3.10/site-packages/autotrain/trainers/common.py", line 117, in wrapper',
        "    return func(*args, kwargs)",
        '  File "/app/env/lib/python3.10/site-packages/transformers/models/llama/modeling_llama.py", line 110, in init',
        '    self.rope_type = config.rope_scaling.get("rope_type", config.rope_scaling["type"])',
        "KeyError: 'type'",
        "'type'",
    ]


def test_flattened_chain_and_ipython_frames() -> None:
    chained = ('Traceback (most recent call last): File "/x/a.py", line 89, in f data["t"].append(1) KeyError: \'t\' '
               "During handling of the above exception, another exception occurred: Traceback (most recent call last): "
               'File "/x/b.py", line 93, in g raise ValueError( ValueError: bad keys')
    assert unfold([chained]) == [
        "Traceback (most recent call last):", '  File "/x/a.py", line 89, in f', '    data["t"].append(1)', "KeyError: 't'",
        "During handling of the above exception, another exception occurred:", "Traceback (most recent call last):",
        '  File "/x/b.py", line 93, in g', "    raise ValueError(", "ValueError: bad keys"]
    ipython = ("File ~/.local/lib/python3.9/site-packages/x.py:109, in set_value(module, name) 108 if t: --> 109 v = t.to(d) "
               "RuntimeError: CUDA error: out of memory")
    assert unfold([ipython]) == ["  File ~/.local/lib/python3.9/site-packages/x.py:109, in set_value(module, name)",
                                 "    108 if t: --> 109 v = t.to(d)", "RuntimeError: CUDA error: out of memory"]


def test_escaped_newlines_and_quotes() -> None:
    text = 'Traceback (most recent call last):\\n  File \\"/x/a.py\\", line 3, in f\\n    g()\\nValueError: no \\"x\\"'
    assert unfold([text]) == ['Traceback (most recent call last):', '  File "/x/a.py", line 3, in f', "    g()",
                              'ValueError: no "x"']


def test_markup_is_undone_but_angle_bracket_names_are_kept() -> None:
    assert unfold(["File &quot;/x/a.py&quot;, line 3, in &lt;module&gt;<br>",
                   "<code>ValueError: x &amp; y</code>"]) == ['File "/x/a.py", line 3, in <module>', "ValueError: x & y"]


@pytest.mark.parametrize("lines", [
    # Python's own traceback
    ["Traceback (most recent call last):", '  File "/x/a.py", line 3, in <module>', "    main()", "KeyError: 'type'"],
    # a Windows path's raw backslashes, "\n" among them, in a real frame line
    ['  File "C:\\Users\\ana\\nltk_data\\nodes\\net.py", line 3, in f', "    g()"],
    # a code line that prints newline escapes
    ['    print("epoch\\nloss\\n")'],
    # a log's level word where no traceback follows it
    ["ERROR something failed", "ERROR  retrying in 5 s"],
    # IPython's markers and Python's angle-bracket names are no markup
    ["in <cell line: 11>()", "---> 11 trainer.train()", '  File "<string>", line 1, in <lambda>'],
    # one frame's head alone on its line (a cut excerpt) and a header with nothing after it
    ['File "/x/a.py", line 3, in f', "Traceback (most recent call last):   "],
    # prose that names a file twice
    ['see File "a.txt" and File "b.txt" for the config'],
    # Python's own lines that review38 found unfolded: a code line joining with "\n\n", jinja's frame whose name
    # has a hyphen and spaces, a debugger's mark after a frame, a message holding a template's repr with "\n\n"
    ['    text = "\\n\\n".join(parts) + tokenizer.decode(model.generate(**inputs)[0])'],
    ['  File "<template>", line 1, in top-level template code'],
    ['  File "/x/a.py", line 3, in f (Current frame)'],
    ["ValueError: The chat template '{% for m in messages %}\\n\\n{{ m.content }}' does not contain the keyword"],
])
def test_near_forms_are_left_alone(lines: list[str]) -> None:
    assert unfold(lines) is lines


def test_ui_level_word_is_cut_only_in_a_chunk_where_it_fronts_a_traceback() -> None:
    assert unfold(["ERROR Traceback (most recent call last):", 'ERROR   File "/x/a.py", line 3, in f',
                   "ERROR     g()", "ERROR ValueError: x"]) == [
        "Traceback (most recent call last):", '  File "/x/a.py", line 3, in f', "    g()", "ValueError: x"]


def test_marks_are_flatten_marks() -> None:
    assert FORUM_MARKS == MARKS


def test_a_note_says_line_numbers_count_the_lines_read() -> None:
    note = "line numbers count the lines read"
    assert any(note in n for n in diagnosed(flattened(PEFT)).notes)
    assert not any(note in n for n in diagnosed(PEFT).notes)


@pytest.mark.parametrize("shape", [entities, ui_prefixed])
def test_the_hook_is_what_answers_a_frame_decided_error(shape, monkeypatch: pytest.MonkeyPatch) -> None:
    assert top(shape(ROPE))[0] == "model-unsupported"
    monkeypatch.setattr(diagnosis, "FORUM_CHARS", 0)  # nothing looked at: the shape is read as pasted
    assert top(shape(ROPE)) is None
    assert not any("lines read" in n for n in diagnosed(shape(ROPE)).notes)


def test_flatten_is_not_imported_for_a_plain_log() -> None:
    code = ("import sys; from kb.diagnose.diagnosis import diagnose_lines; from kb.knowledge.registry import "
            "load_knowledge; diagnose_lines(['step 1 loss 2.0\\n', 'RuntimeError: CUDA out of memory.\\n'], "
            "load_knowledge()); print('kb.diagnose.flatten' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def test_long_adversarial_line_is_linear() -> None:
    line = ('File "/x/a.py", line 1, in f ' * 4000) + "x" * 100_000
    started = time.perf_counter()
    out = unfold([line])
    assert len(out) > 4000
    assert time.perf_counter() - started < 5.0
