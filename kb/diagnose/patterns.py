"""The shapes of error output the parser reads: traceback lines, exception lines, IPython, rich,
C++ context, CUDA advice, NCCL and CUDA-kernel lines. Knowledge of particular messages is not here:
the words that mark a known message come from the signatures (kb/knowledge/literal.py).
"""

from __future__ import annotations

import re

MAX_FRAMES = 64
MAX_MESSAGE_LINES = 12
MAX_MESSAGE_CHARS = 8_000
CONTEXT_LINES = 12  # preceding lines kept with each error (for case hints)
AFTER_LINES = 6  # following lines kept with each error (for case hints)
CONTEXT_CHARS = 300
RECENT_FOR_DEDUPE = 16

TB_TEXT = "Traceback (most recent call last)"
TRACEBACK_START = re.compile(r"^\s*(?:Original )?Traceback \(most recent call last\):\s*$")
FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>.+?))?\s*$')
EXCEPTION_NAME = (
    r"(?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Timeout|Fault)"
)
EXCEPTION_LINE = re.compile(rf"^(?P<type>{EXCEPTION_NAME})(?::\s?(?P<message>.*))?$")
# An exception line not at the start: "ERROR ... RuntimeError: ..." or "E   RuntimeError: ..."
# Not glued to a preceding identifier; anything else may precede it (prose, CJK text: "报错RuntimeError: ...").
EMBEDDED_EXCEPTION = re.compile(rf"(?<![A-Za-z0-9_])(?P<type>{EXCEPTION_NAME})\.?:\s*(?P<message>\S.*)$")
# RuntimeError('CUDA out of memory. ...',)
REPR_EXCEPTION = re.compile(rf"(?:^|[\s(\[])(?P<type>{EXCEPTION_NAME})\((?P<q>['\"])(?P<message>.+?)(?P=q),?\)")
CHAIN_MARKERS = (
    "The above exception was the direct cause of the following exception:",
    "During handling of the above exception, another exception occurred:",
)
# IPython / Jupyter
IPY_HEADER = re.compile(rf"^(?P<type>{EXCEPTION_NAME})\s{{2,}}Traceback \(most recent call last\)\s*$")
IPY_FRAME = re.compile(
    r"^(?:File (?P<file>.+?):(?P<line>\d+), in (?P<function>.+)"
    r"|Cell In\s*\[\d+\], line (?P<cell_line>\d+)"
    r"|(?P<input><ipython-input-[^>]+>) in (?P<input_function>[^\s(]+)"
    r"|(?P<old_file>[~/.\w][^\s]*\.py) in (?P<old_function>[^\s(]+)\(.*)\s*$"
)
IPY_ARROW = re.compile(r"^\s*-*>\s*(?:\[\d+\]\([^)]*\)\s*)?\d+\s(?P<code>.*)$")
IPY_CONTEXT = re.compile(r"^\s+(?:\[\d+\]\([^)]*\)\s*)?\d+\s")
# rich tracebacks, unboxed by clean_line: "/usr/lib/.../auto_factory.py:472 in from_pretrained", "❱ 472 │ code"
RICH_FRAME = re.compile(r"^(?P<file>(?:[A-Za-z]:)?[^\s:│]*\.py):(?P<line>\d+) in(?: (?P<function>\S+))?$")
RICH_CODE = re.compile(r"^(?P<arrow>❱\s*)?\d+\s*│(?P<code>.*)$")
# Flattened onto one line
INLINE_FRAME = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)(?:, in (?P<function>[^\s]+))?')
SPLIT_MARKERS = re.compile(
    r"(Traceback \(most recent call last\):|" + "|".join(re.escape(m) for m in CHAIN_MARKERS) + ")"
)
# C++ context and CUDA advice: never part of a message
CPP_CONTEXT = re.compile(r"^\s*(?:Exception raised from .*\(most recent call first\):|frame #\d+:|\[Previous line repeated)")
CUDA_ADVICE = re.compile(
    r"\s*(?:CUDA kernel errors might be asynchronously reported|For debugging consider passing CUDA_LAUNCH_BLOCKING"
    r"|Compile with `?TORCH_USE_CUDA_DSA`?|Device-side assertion tracking was not enabled)"
)
# Errors without a Python exception line
NCCL_WARN = re.compile(r"\bNCCL WARN (?P<message>\S.*)$")
# "Indexing.cu:1146: indexSelectLargeIndex: block: [18,0,0], thread: [5,0,0] Assertion `srcIndex < srcSelectDimSize` failed."
# Threads print concurrently, so lines come interleaved and cut: only the assertion itself is required.
CUDA_ASSERT = re.compile(r"Assertion `(?P<cond>[^`]{1,300})` failed")
CUDA_ASSERT_WHERE = re.compile(r"(?P<src>[\w.-]+\.cuh?):\d+(?:,[\d,]*)?: (?:void )?(?P<function>\w+)")
WATCHDOG = re.compile(r"(?:\[Rank (?P<rank>\d+)\] )?(?P<message>Watchdog caught collective operation timeout: .*)$")
