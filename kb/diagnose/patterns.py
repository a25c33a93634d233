"""The shapes of error output the parser reads: traceback lines, exception lines, IPython, rich,
C++ context, CUDA advice, NCCL and CUDA-kernel lines. Knowledge of particular messages is not here:
the words that mark a known message come from the signatures (kb/knowledge/literal.py).

Every pattern here must run in time linear in the line, whatever the line holds (issue 15): a line
of 64 KiB made of the one character a pattern keeps retrying (spaces, ``a.``, word characters) must
not make it backtrack from every position. The rules kept to: no two adjacent repeats that can take
the same characters (``\\s*[-|]?\\s*``), a repeat that ends a pattern is followed by something it
cannot take or by nothing (``.+?\\s*$`` is not), a search that could start anywhere in a long run is
anchored to the run's start by a lookbehind, and dotted names have a bounded number of parts.
tests/test_adversarial_time.py checks each family on generated hostile lines.

The patterns are built through kb/knowledge/precompiled.py: from a per-machine cache of what the regex
compiler produced, so importing this module neither imports ``re`` nor compiles anything once cached. Each is
built the first time it is read (``patterns.FRAME``: the module's ``__getattr__``, then an ordinary attribute): most
inputs show few of these shapes (a one-line error reads 4 of 22; building the rest was ~0.25 ms of start-up).
"""

from __future__ import annotations

from kb.knowledge.precompiled import escape, pattern

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    import re

MAX_FRAMES = 64
MAX_MESSAGE_LINES = 12
MAX_MESSAGE_CHARS = 8_000
CONTEXT_LINES = 12  # preceding lines kept with each error (for case hints)
AFTER_LINES = 6  # following lines kept with each error (for case hints)
CONTEXT_CHARS = 300
RECENT_FOR_DEDUPE = 16
# Tracebacks open at once (one per rank): past this, the oldest is closed as truncated. Each holds at
# most MAX_FRAMES frames of about 1 KB, so the parser's state stays within a few MB on any input.
MAX_OPEN_TRACEBACKS = 256

# The regexes, by name: each built on first use (``__getattr__`` below), then kept as the module's attribute.
SHAPES: dict[str, str] = {}

TB_TEXT = "Traceback (most recent call last)"
SHAPES["TRACEBACK_START"] = r"^\s*(?:Original )?Traceback \(most recent call last\):\s*$"
# The function ends at the last non-space character (``.*\S``): a lazy ``.+?\s*$`` retried the rest of the
# line after every character.
SHAPES["FRAME"] = r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in(?: (?P<function>.*\S))?)?\s*$'
# (runtime46) A frame line whose head an excerpt cut off: it starts inside the path, after `File "` ("**/deepspeed/runtime/
# zero/stage_1_and_2.py", line 1088, in set_norm_for_param_grad_in_gpu", "miniconda3/envs/x/lib/python3.9/site-packages/
# peft/tuners/lora.py", line 154, in _find_and_replace"): the path's rest, its closing quote, the line and the function.
# Matched from the line's start (``match``) with bounded repeats: linear in the line.
SHAPES["CUT_FRAME"] = r'(?P<file>[^\s"]{1,400}\.py)", line (?P<line>\d{1,7}), in (?P<function>\S{1,200})$'
EXCEPTION_SUFFIXES = "Error|Exception|Exit|Interrupt|Warning|Failure|Timeout|Fault"
# At most 12 dotted parts before the name ("torch.distributed.elastic.multiprocessing.errors.ChildFailedError"
# has 5): unbounded, ``a.a.a.…`` made every start position retry the whole run. The parts are taken
# possessively (``*+``, ``{0,12}+``: never given back), which is safe because a part is taken only when its
# dot is followed by the start of another part, so the last part is always left for the name.
#
# Beside the names with a suffix: Python's own classes without one (``raise Exception("...")`` prints
# "Exception: ...", DataParallel re-raises "StopIteration: ..."), and a class of a module named for its errors
# ("triton.runtime.errors.OutOfResources: ...", "torch._dynamo.exc.BackendCompilerFailed: ..."): the module's
# name is the evidence, so the class needs no suffix (a lookbehind each: Python's are of fixed width).
BARE_EXCEPTIONS = "Exception|StopIteration|StopAsyncIteration|(?:Base)?ExceptionGroup"
ERRORS_MODULES = ("errors", "exc", "exceptions")
# ... and a class of a compiled extension's module (``pyarrow.lib.ArrowInvalid``, ``torch._C._LinAlgError``,
# ``tokenizers_rust.X``): those modules hold a library's exception classes under names without a suffix.
EXTENSION_MODULES = (r"\.lib", r"\._C", r"_rust")
_IN_ERRORS_MODULE = ("(?:" + "|".join([*(rf"(?<=\.{m}\.)" for m in ERRORS_MODULES), *(rf"(?<={m}\.)" for m in EXTENSION_MODULES)])
                     + r")_?[A-Z]\w*")
EXCEPTION_NAME = (rf"(?:[A-Za-z_]\w*+\.(?=[A-Za-z_])){{0,12}}+"
                  rf"(?:[A-Za-z_]\w*(?:{EXCEPTION_SUFFIXES})|(?:{BARE_EXCEPTIONS})|{_IN_ERRORS_MODULE})")
# Where an exception line can end its type: ``Error:``, ``Error.:``. A line without one holds no
# embedded exception line, and the type starts at most MAX_TYPE_CHARS before it.
SHAPES["EXCEPTION_COLON"] = (rf"(?:{EXCEPTION_SUFFIXES}|StopIteration|StopAsyncIteration|ExceptionGroup"
                             rf"|\.(?:{'|'.join(ERRORS_MODULES)})\.[A-Z]\w*|(?:{'|'.join(EXTENSION_MODULES)})\._?[A-Z]\w*)\.?:")
MAX_TYPE_CHARS = 300
SHAPES["EXCEPTION_LINE"] = rf"^(?P<type>{EXCEPTION_NAME})(?::\s?(?P<message>.*))?$"
# (rt46) Ray re-raises a task's exception in its caller as "ray.exceptions.RayTaskError(<the task's class>): ray::Actor.f()
# (pid=..., ip=...)" (verl, OpenRLHF and the other Ray-based trainers): the class in parentheses is the error's type.
SHAPES["RAY_TASK_ERROR"] = (r"^(?:[A-Za-z_]\w{0,60}\.){0,6}RayTaskError\((?P<type>[A-Za-z_][\w.]{0,200})\)"
                            r":\s?(?P<message>.*)$")
# An exception line not at the start: "ERROR ... RuntimeError: ..." or "E   RuntimeError: ..."
# Not glued to a preceding identifier; anything else may precede it (prose, CJK text: "报错RuntimeError: ...").
SHAPES["EMBEDDED_EXCEPTION"] = rf"(?<![A-Za-z0-9_])(?P<type>{EXCEPTION_NAME})\.?:\s*(?P<message>\S.*)$"
# RuntimeError('CUDA out of memory. ...',)
# The message ends at its first unescaped quote of the kind that opened it (a repr escapes that quote inside),
# and is at most 2,000 characters: a lazy ``.+?`` ran from every `` xError('`` of a line to the line's end.
SHAPES["REPR_EXCEPTION"] = (
    rf"(?:^|[\s(\[])(?P<type>{EXCEPTION_NAME})\((?P<q>['\"])"
    r"(?P<message>(?:[^'\"\\]|\\.|(?!(?P=q))['\"]){1,2000})(?P=q),?\)"
)
CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
# IPython / Jupyter (and Colab: "<ipython-input-7-6df1> in <cell line: 60>()", "[/tmp/ipython-input-36.py] in
# <cell line: 0>()", "[/usr/local/lib/python3.12/dist-packages/x.py] in f(self, ...)")
# IPython's header names the class whatever its name ("ArrowInvalid", "torch.cuda.OutOfMemoryError"): the name, then
# "Traceback (most recent call last)" right-justified to column 75 (a name of 42 characters or more is glued to it).
# The header's shape is the evidence, so the name needs no suffix; IPYTHON_HEADER_COLUMN is checked by the parser.
SHAPES["IPY_ANY_HEADER"] = (r"^(?P<type>(?:[A-Za-z_]\w*+\.(?=[A-Za-z_])){0,12}+[A-Za-z_]\w*?)(?P<pad> *)"
                            r"Traceback \(most recent call last\)\s*$")
IPYTHON_HEADER_COLUMN = 42
# (Jupyter 8: "File ~/x.py:165, in f(a)", a module's top level "File /x/__init__.py:91"; VS Code links the cell's line:
# "Cell In[4], [line 74](vscode-notebook-cell:?execution_count=4&line=74)"; Colab pasted as markdown links its
# frames: "[<ipython-input-25-c52c>](https://localhost:8080/#) in <cell line: 14>()"; Kaggle: "/tmp/ipykernel_47/1155.py in
# <cell line: 0>()")
SHAPES["IPY_FRAME"] = (
    r"^(?:File (?P<file>.+?):(?P<line>\d+)(?:, in (?P<function>.+))?"
    r"|Cell In\s*\[\d+\], \[?line (?P<cell_line>\d+)(?:\]\([^)\s]{0,500}\))?(?:, in (?P<cell_function>.+))?"
    r"|(?P<input><ipython-input-[^>]+>|\[[^\]\s]{0,500}ipython-input-[^\]\s]{0,100}\])(?:\([^)\s]{0,500}\))? in "
    r"(?P<input_function><cell line: \d+>|[^\s(]+)(?:\(.*)?"
    r"|\[?(?P<old_file>[~/.\w][^\s\]]*\.py)\]?(?:\([^)\s]{0,500}\))? in (?P<old_function><cell line: \d+>|[^\s(]+)\(.*)\s*$"
)
# Colab folds the library's frames: "9 frames" stands where they were.
SHAPES["IPY_FOLDED"] = r"^\d{1,4} frames?$"
SHAPES["IPY_ARROW"] = r"^\s*-*>\s*(?:\[\d+\]\([^)]*\)\s*)?\d+\s(?P<code>.*)$"
SHAPES["IPY_CONTEXT"] = r"^\s+(?:\[\d+\]\([^)]*\)\s*)?\d+\s"
# rich tracebacks, unboxed by clean_line: "/usr/lib/.../auto_factory.py:472 in from_pretrained", "❱ 472 │ code"
SHAPES["RICH_FRAME"] = r"^(?P<file>(?:[A-Za-z]:)?[^\s:│]*\.py):(?P<line>\d+) in(?: (?P<function>\S+))?$"
SHAPES["RICH_CODE"] = r"^(?P<arrow>❱\s*)?\d+\s*│(?P<code>.*)$"
# Flattened onto one line
SHAPES["INLINE_FRAME"] = r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>[^\s]+))?'
SHAPES["SPLIT_MARKERS"] = r"(Traceback \(most recent call last\):|" + "|".join(escape(m) for m in CHAIN_MARKERS) + ")"
# C++ context and CUDA advice (ROCm's builds print the same advice for HIP): never part of a message
SHAPES["CPP_CONTEXT"] = r"^\s*(?:Exception raised from .*\(most recent call first\):|frame #\d+:|\[Previous line repeated)"
CUDA_ADVICE_TEXT = (
    r"(?:(?:CUDA|HIP) kernel errors might be asynchronously reported"
    r"|For debugging consider passing (?:CUDA_LAUNCH_BLOCKING|AMD_SERIALIZE_KERNEL)"
    r"|Compile with `?TORCH_USE_(?:CUDA|HIP)_DSA`?|Device-side assertion tracking was not enabled)"
)
SHAPES["CUDA_ADVICE"] = r"\s*" + CUDA_ADVICE_TEXT  # a line that is advice (``match`` only)
# Where advice starts inside a message: searched without a leading ``\s*`` (which retried every space of
# a long run of spaces); the message is cut there and its end stripped.
SHAPES["CUDA_ADVICE_IN_MESSAGE"] = CUDA_ADVICE_TEXT
# A C++ exception nothing caught (std::terminate prints it and the process aborts): the class on one line, its message
# on the next: "terminate called after throwing an instance of 'c10::Error'", "  what():  CUDA error: ...". Read by
# str.find (no regex): the class ends at the quote, the message follows WHAT.
CPP_TERMINATE = "terminate called after throwing an instance of '"
CPP_WHAT = "what():"
MAX_CPP_CLASS_CHARS = 200
# Errors without a Python exception line
SHAPES["NCCL_WARN"] = r"\bNCCL WARN (?P<message>\S.*)$"
# "Indexing.cu:1146: indexSelectLargeIndex: block: [18,0,0], thread: [5,0,0] Assertion `srcIndex < srcSelectDimSize` failed."
# Threads print concurrently, so lines come interleaved and cut: only the assertion itself is required.
SHAPES["CUDA_ASSERT"] = r"Assertion `?(?P<cond>[^`\n]{1,300}?)`? failed"  # markdown may eat the backticks
# The source name starts where a run of name characters starts (the lookbehind): else a long word was
# retried from each of its characters.
SHAPES["CUDA_ASSERT_WHERE"] = r"(?<![\w.-])(?P<src>[\w.-]+\.cuh?):\d+(?:,[\d,]*)?: (?:void )?(?P<function>\w+)"
SHAPES["WATCHDOG"] = r"(?:\[Rank (?P<rank>\d+)\] )?(?P<message>Watchdog caught collective operation timeout: .*)$"

# A command line's usage error (argparse, jsonargparse, click, typer): its usage ("usage: prog [-h] ...", "Usage: prog
# [OPTIONS]"), then within a few lines the error: argparse's "prog: error: ...", jsonargparse's "error: ...", click's
# "Error: ...". No exception is printed (the program exits with status 2): the message is the error, its type unknown.
# Read in the typeless window only (a usage error ends a run as it starts), by str methods (no regex).
USAGE_LITERALS = ("usage: ", "Usage: ")
CLI_ERROR_LITERALS = ("error: ", "Error: ")
USAGE_ERROR_LINES = 8
MAX_PROGRAM_CHARS = 80

# Python's own messages of five exception types, standing alone without their type (a report's title, a line of
# prose): the whole text is the message, so its type is implied. Only these exact shapes: a phrase inside a sentence
# is not one. (The unquoted class, "Dataset object has no attribute 'x'", is a title's way of writing Python's
# "'Dataset' object ...".)
IMPLIED_MESSAGES = (  # (the type, a regex's source: the parser builds them only for a line of IMPLIED_ENDINGS)
    ("AttributeError", r"^(?:'(?P<cls>[A-Za-z_][\w.]{0,200})'|(?P<bare>[A-Z][\w.]{0,200})) object has no attribute "
                       r"'\w{1,200}'\.?$"),
    ("AttributeError", r"^(?:module|type object) '[A-Za-z_][\w.]{0,200}' has no attribute '\w{1,200}'\.?$"),
    ("ImportError", r"^cannot import name '[A-Za-z_][\w.]{0,200}'(?: from '[A-Za-z_][\w.]{0,200}'"
                    r"(?: \([^()]{1,500}\))?)?\.?$"),
    ("TypeError", r"^(?:[A-Za-z_][\w.]{0,200}\(\) )?got an unexpected keyword argument '\w{1,200}'\.?$"),
    ("ModuleNotFoundError", r"^No module named '[A-Za-z_][\w.]{0,200}'\.?$"),
    ("NameError", r"^name '[A-Za-z_]\w{0,200}' is not defined(?:\. Did you mean: '\w{1,200}'\?)?\.?$"),
    # the call's other mismatches (a release added or removed a parameter) and an object used as another type
    ("TypeError", r"^(?:[A-Za-z_][\w.]{0,200}\(\) )?takes (?:from \d{1,2} to )?\d{1,2} positional arguments? but "
                  r"\d{1,2} (?:were|was) given\.?$"),
    ("TypeError", r"^(?:[A-Za-z_][\w.]{0,200}\(\) )?missing \d{1,2} required (?:positional|keyword-only) "
                  r"arguments?: '\w{1,200}'(?:(?:, '\w{1,200}')*,? and '\w{1,200}')?\.?$"),
    ("TypeError", r"^'[A-Za-z_][\w.]{0,200}' object is not (?:subscriptable|callable|iterable)$"),
)
# How a line of IMPLIED_MESSAGES can end (the parser's cheap check before trying the shapes): keep the two in step.
IMPLIED_ENDINGS = ("'", "'.", ")", ").", " defined", " defined.", "'?", " given", " given.", " subscriptable", " callable",
                   " iterable")
# Where the parser looks for the unquoted form beside the signatures' literals (which hold the others' phrases).
IMPLIED_LITERAL = " object has no attribute '"
# ... and the one for an object used as another type ("'LoraConfig' object is not subscriptable"): both mark a line
IMPLIED_LITERALS = (IMPLIED_LITERAL, "' object is not ")


def __getattr__(name: str) -> re.Pattern[str]:
    """SHAPES[name] built (kb/knowledge/precompiled.py) and kept as the module's attribute, so that it is built once."""
    source = SHAPES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    compiled = globals()[name] = pattern(source)
    return compiled
