"""Report shapes the parser misread in the turn-35 survey of the dev corpus (benchmarks/results/corpus-turn35-shapes.txt).

Each shape is a mechanism, not a wording: a per-line prefix a launcher or logger puts on a child's output
(``stderr: ``, torch's own log records ``E0822 16:10:35.525161 1396... torch/.../api.py:833] ``, a timestamp followed
by a colon), ROCm's advice after a HIP error (HIP's twin of CUDA_LAUNCH_BLOCKING's), and one more of Python's own
messages standing without its type (NameError's "name 'x' is not defined"). Each test reads the corpus's record
where it holds the report (corpus/*.jsonl, tests/corpus_support.py) and checks the type, message and frames parsed
and the family answered; the property tests check that any prefix of a kind leaves the parse of a traceback as it is.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from corpus_support import record
from parse_support import cpu_seconds_per_mb, errors
from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.errors import ParsedError
from kb.knowledge.registry import load_knowledge

KNOWLEDGE = load_knowledge()
CASE_FAMILY = {c.key: c.family for c in KNOWLEDGE.cases}


def family(text: str) -> str | None:
    """The family of the top answer (a case's family for a case), or None."""
    answers = diagnose_lines(text.splitlines(keepends=True), KNOWLEDGE).answers
    if not answers:
        return None
    key = answers[0].match.entry.key
    return CASE_FAMILY.get(key) if answers[0].kind == "case" else key


def shape(found: list[ParsedError]) -> list[tuple[str, str, list[tuple[str, int, str]], str | None]]:
    return [(e.type, e.message, [(f.file, f.line, f.function) for f in e.frames], e.rank) for e in found]


# A traceback of the corpus (gh:hiyouga/LlamaFactory#5243, its first traceback): the launcher's import of the package
# it was not installed as.
TRACEBACK = """Traceback (most recent call last):
  File "/home/u/LLaMA-Factory/src/llamafactory/launcher.py", line 15, in <module>
    from llamafactory.train.tuner import run_exp
ModuleNotFoundError: No module named 'llamafactory'
"""


def test_the_plain_traceback_parses_and_answers() -> None:
    found = errors(TRACEBACK)
    assert shape(found) == [("ModuleNotFoundError", "No module named 'llamafactory'",
                             [("/home/u/LLaMA-Factory/src/llamafactory/launcher.py", 15, "<module>")], None)]
    assert family(TRACEBACK) == "package-install"


# -- a captured stream's name before each line ("stderr: ") -----------------------------------------------------------

def test_stderr_prefixed_traceback_keeps_all_its_frames() -> None:
    """gh:huggingface/accelerate#847: accelerate's launcher output captured by its test utilities, "stderr: " before
    every line. The frames after the first were lost (the prefix hid the indentation that tells a frame's code from
    the lines after the traceback)."""
    text = record("gh:huggingface/accelerate#847")
    found = [e for e in errors(text) if e.frames]
    assert len(found) == 1
    functions = [f.function for f in found[0].frames]
    assert functions == ["<module>", "main", "launch_command", "multi_gpu_launcher", "run"]
    assert found[0].frames[-1].file == "/opt/conda/lib/python3.10/site-packages/torch/distributed/run.py"
    assert family(text) == "multi-gpu-launch"


def test_stderr_prefixed_launcher_summary_is_read_as_the_launchers_noise() -> None:
    """gh:huggingface/accelerate#2390: torchrun's summary under "stderr: " (its class line has no message after the
    colon, so the prefix left it unread): read as ChildFailedError, a consequence, not a cause."""
    found = errors(record("gh:huggingface/accelerate#2390"))
    assert [e.type for e in found] == ["torch.distributed.elastic.multiprocessing.errors.ChildFailedError"]
    assert found[0].noise is not None
    assert "test_script.py FAILED" in found[0].message


# -- torch's own log records, and a timestamp followed by a colon ----------------------------------------------------

def test_torch_log_record_prefix_is_cut() -> None:
    """gh:unslothai/unsloth#1175: torch._dynamo logs a traceback through its own logger, "W1024 01:17:10.936000
    140404233111360 torch/_dynamo/convert_frame.py:1009] " before every line (after a viewer's "[01:17:10.938]: ").
    The record is cut before its exception line: its frames are what it holds, and all are read."""
    found = errors(record("gh:unslothai/unsloth#1175"))
    frames = [(f.file.rsplit("/", 1)[-1], f.line, f.function) for e in found for f in e.frames]
    assert frames == [("convert_frame.py", 948, "__call__"), ("convert_frame.py", 472, "__call__")]


def test_torch_log_record_does_not_reach_the_message_with_its_prefix() -> None:
    """gh:hiyouga/LlamaFactory#5243: torchrun's "E0822 16:10:35.525161 139625595627328 torch/.../api.py:833] failed
    (exitcode: 1) ..." after the worker's error: no log prefix is left in the message, and the family is answered."""
    text = record("gh:hiyouga/LlamaFactory#5243")
    found = errors(text)
    assert found[0].type == "ModuleNotFoundError"
    assert found[0].message.startswith("No module named 'llamafactory'")
    assert "E0822" not in found[0].message and "api.py:833]" not in found[0].message
    assert family(text) == "package-install"


def test_timestamp_with_a_colon_before_a_rank_prefix() -> None:
    """gh:hiyouga/LlamaFactory#5550: "2024-09-26 07:59:39.732000: [rank2]: " before every line: the colon after the
    time kept the rank prefix from being read, so the lines were not the rank's traceback."""
    found = errors(record("gh:hiyouga/LlamaFactory#5550"))
    ranked = [e for e in found if e.frames]
    assert ranked and all(e.rank == "2" for e in ranked)
    assert [f.function for f in ranked[0].frames][:3] == ["<module>", "launch", "run_exp"]


_DIGITS = st.integers(min_value=0, max_value=9)


@st.composite
def log_prefix(draw: st.DrawFn) -> str:
    """A prefix of one of the kinds fixed here, with its numbers drawn."""
    d = [draw(_DIGITS) for _ in range(8)]
    kind = draw(st.sampled_from(["stderr", "stdout", "torch", "torch-viewer", "stamp-colon"]))
    if kind in ("stderr", "stdout"):
        return f"{kind}: "
    pid = draw(st.integers(min_value=1, max_value=2**47))
    source = draw(st.sampled_from(["torch/distributed/elastic/multiprocessing/api.py", "torch/_dynamo/convert_frame.py"]))
    level = draw(st.sampled_from("IWEF"))
    torch = f"{level}{d[0]}{d[1]}2{d[2]} 1{d[3]}:1{d[4]}:3{d[5]}.{d[6]}25161 {pid} {source}:{d[7] + 1}33] "
    if kind == "torch":
        return torch
    if kind == "torch-viewer":
        return f"[0{d[0]}:1{d[1]}:1{d[2]}.938]: {torch}"
    return f"2024-09-2{d[0]} 0{d[1]}:5{d[2]}:3{d[3]}.732000: "


@settings(max_examples=150, deadline=None)
@given(log_prefix())
def test_any_prefix_of_these_kinds_leaves_the_parse_as_it_is(prefix: str) -> None:
    prefixed = "".join(prefix + line for line in TRACEBACK.splitlines(keepends=True))
    assert shape(errors(prefixed)) == shape(errors(TRACEBACK))


@settings(max_examples=60, deadline=None)
@given(log_prefix())
def test_any_prefix_of_these_kinds_keeps_the_family(prefix: str) -> None:
    prefixed = "".join(prefix + line for line in TRACEBACK.splitlines(keepends=True))
    assert family(prefixed) == "package-install"


# -- ROCm's advice after a HIP error ----------------------------------------------------------------------------------

def test_hip_advice_is_not_part_of_the_message() -> None:
    """gh:huggingface/autotrain-advanced#737: ROCm's build prints HIP's twin of CUDA's advice ("HIP kernel errors might
    be asynchronously reported ...", "AMD_SERIALIZE_KERNEL=3", "TORCH_USE_HIP_DSA"); it ended up in the message."""
    text = record("gh:huggingface/autotrain-advanced#737")
    found = errors(text)
    assert found[0].type == "RuntimeError"
    assert found[0].message == "HIP error: no kernel image is available for execution on the device"
    assert family(text) == "cuda-setup"


def test_hip_advice_lines_on_their_own() -> None:
    text = ("RuntimeError: HIP error: invalid device function\n"
            "HIP kernel errors might be asynchronously reported at some other API call, so the stacktrace below might"
            " be incorrect.\n"
            "For debugging consider passing AMD_SERIALIZE_KERNEL=3\n"
            "Compile with `TORCH_USE_HIP_DSA` to enable device-side assertions.\n")
    found = errors(text)
    assert [(e.type, e.message) for e in found] == [("RuntimeError", "HIP error: invalid device function")]


# -- NameError's message without its type -----------------------------------------------------------------------------

def test_name_error_message_alone_gets_its_type() -> None:
    """gh:huggingface/trl#667: the report's error is Python's NameError message alone. (No rule of the family it
    belongs to, api-drift, knows this name yet: the parse is what this shape fixes.)"""
    found = errors(record("gh:huggingface/trl#667"))
    assert [(e.type, e.message) for e in found] == [("NameError", "name 'PeftModel' is not defined")]


def test_name_error_with_pythons_suggestion() -> None:
    found = errors("name 'trainer' is not defined. Did you mean: 'Trainer'?\n")
    assert [(e.type, e.message) for e in found] == [("NameError", "name 'trainer' is not defined. Did you mean: 'Trainer'?")]


def test_a_sentence_around_the_name_error_message_is_not_it() -> None:
    found = errors("I think the name 'x' is not defined because of the import\n")
    assert all(e.type != "NameError" for e in found)


# -- a C++ exception nothing caught (std::terminate) ------------------------------------------------------------------

def test_cpp_terminate_gives_the_class_and_its_what() -> None:
    """gh:unslothai/unsloth#2886: "terminate called after throwing an instance of 'c10::Error'" and, on the next line,
    "  what():  CUDA error: an illegal memory access was encountered": the class and the message were not read. (The
    report is labelled unknown-family: no family is claimed for it.)"""
    text = record("gh:unslothai/unsloth#2886")
    found = [e for e in errors(text) if e.kind == "cpp"]
    assert [(e.type, e.message) for e in found] == [("c10::Error", "CUDA error: an illegal memory access was encountered")]
    assert family(text) is None


def test_cpp_terminate_after_a_hip_error_keeps_the_family() -> None:
    """gh:huggingface/autotrain-advanced#737: the Python error, then the terminate of a C++ exception with its
    context ("Exception raised from free at ...", "frame #0: ..."), which ends the message."""
    text = record("gh:huggingface/autotrain-advanced#737")
    found = [e for e in errors(text) if e.kind == "cpp"]
    assert [(e.type, e.message) for e in found] == [("c10::Error", "invalid device pointer: 0x5400000")]
    assert found[0].advice and found[0].advice[0].startswith("Exception raised from free")
    assert family(text) == "cuda-setup"


def test_cpp_terminate_of_a_std_class_and_without_its_what() -> None:
    text = ("terminate called after throwing an instance of 'std::bad_alloc'\n"
            "  what():  std::bad_alloc\n"
            "Aborted (core dumped)\n")
    assert [(e.type, e.message, e.kind) for e in errors(text)] == [("std::bad_alloc", "std::bad_alloc", "cpp")]
    alone = errors("terminate called after throwing an instance of 'c10::DistBackendError'\nAborted (core dumped)\n")
    assert [(e.type, e.message) for e in alone] == [("c10::DistBackendError", "")]


# -- a command line's usage error (argparse, click) -------------------------------------------------------------------

def test_click_usage_error_is_read() -> None:
    """gh:meta-pytorch/torchtune#2001: click's "Usage: tune [OPTIONS] ...", then "Error: No such command 'run'.":
    no exception is printed, and nothing was read. (No rule of its family, package-install, knows the wording yet:
    the report stays silent; the parse is what this shape fixes.)"""
    text = record("gh:meta-pytorch/torchtune#2001")
    found = errors(text)
    assert [(e.type, e.message, e.kind) for e in found] == [("", "No such command 'run'.", "usage")]
    assert family(text) is None


def test_argparse_usage_error_after_a_wrapped_usage() -> None:
    """gh:Lightning-AI/litgpt#1797: jsonargparse's usage wrapped onto two lines, then "error: argument subcommand:
    invalid choice: ..."; argparse's own form names the program first ("prog: error: ...")."""
    found = errors(record("gh:Lightning-AI/litgpt#1797"))
    assert [e.kind for e in found] == ["usage"]
    assert found[0].message.startswith("argument subcommand: invalid choice: 'finetune_lora' (choose from 'download',")
    text = ("usage: train.py [-h] [--model MODEL]\n"
            "train.py: error: unrecognized arguments: --lora_r 8\n")
    assert [(e.type, e.message) for e in errors(text)] == [("", "unrecognized arguments: --lora_r 8")]


def test_an_error_line_without_a_usage_before_it_is_not_a_usage_error() -> None:
    far = "usage: train.py [-h]\n" + "step 1\n" * 9 + "train.py: error: unrecognized arguments: --x\n"
    assert all(e.kind != "usage" for e in errors(far))
    assert all(e.kind != "usage" for e in errors("pip: error: unrecognized arguments: --x\n"))


def test_a_terminate_inside_a_joined_line_leaves_the_lines_error() -> None:
    """gh:open-mmlab/mmrotate#500: a paste joined onto one line, the Python error first: it stays the error read."""
    text = ("RuntimeError: CUDA error: an illegal memory access was encountered terminate called after throwing an"
            " instance of 'c10::Error' what(): CUDA error: an illegal memory access was encountered\n")
    assert [e.type for e in errors(text)] == ["RuntimeError"]


# -- the new shapes stay linear on hostile lines ----------------------------------------------------------------------

_HOSTILE_HEADS = ["stderr: ", "E0822 16:10:35.525161 1 ", "W1024 01:17:10.936000 1 a/b.py:1] ",
                  "2024-09-26 07:59:39.732000: ", "[01:17:10.938]: ", "terminate called after throwing an instance of '",
                  "  what():  ", "usage: x ", "x: error: ", "Error: ", "HIP kernel errors ", "name '"]
_HOSTILE_FILLERS = [" ", "a", "a/", "1", ":", "'", "1 ", "a:1]", "0:0:0.0 "]


def test_the_new_shapes_are_linear_on_hostile_lines() -> None:
    """Each head then a filler repeated to 8 KiB, after a usage line (so the usage error's window is open) and after
    a terminate line (so its "what():" is awaited): under 3 s per MB of CPU, as tests/test_adversarial_time.py asks
    of every pattern."""
    lines = ["usage: prog [-h]\n", "terminate called after throwing an instance of 'c10::Error'\n"]
    for head in _HOSTILE_HEADS:
        for filler in _HOSTILE_FILLERS:
            lines.append(head + filler * ((8 * 1024 - len(head)) // len(filler)) + "\n")
    assert cpu_seconds_per_mb(lines) < 3.0


# -- a second exception line under decoration ------------------------------------------------------------------------

def test_a_decorated_exception_line_is_an_error_of_its_own() -> None:
    """gh:huggingface/sentence-transformers#3207: "=========> ValueError: ..." then "=========> RuntimeError: ...": the
    second was read as a line of the first's message."""
    text = record("gh:huggingface/sentence-transformers#3207")
    found = errors(text)
    assert [e.type for e in found] == ["ValueError", "RuntimeError"]
    assert found[0].message.endswith("by launching with python {{myscript.py}}.")
    assert found[1].message.startswith("Expected all tensors to be on the same device, but found at least two devices")
    assert family(text) == "multi-gpu-launch"


def test_a_message_line_that_merely_starts_with_a_dash_stays_in_the_message() -> None:
    found = errors("ValueError: bad config\n- see the docs: the field is required\n")
    assert [(e.type, e.message) for e in found] == [("ValueError", "bad config\n- see the docs: the field is required")]
