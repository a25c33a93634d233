"""Forum text shapes: error text as a forum post, a page or a web UI shows it, turned back into Python's lines.

Reports from forums (Hugging Face Forums and Hub discussions, Stack Overflow, Reddit, Kaggle) carry the same errors
as GitHub issues in other shapes (corpus/reports-qa-34.jsonl, reports-qa-38.jsonl; benchmarks/forum_shapes.py
measures each over the corpus):

- a traceback flattened onto one line, its newlines lost: ``Traceback (most recent call last): File "...", line
  117, in wrapper return func(...) File "..." ... KeyError: 'type'``;
- its newlines kept as escapes, as a JSON string or a Python repr shows them: ``...call last):\\n  File \\"...``;
- HTML left by a page's markup: ``&quot;``, ``&#39;``, ``&lt;module&gt;``, ``<br>``, ``<code>``;
- a web UI's level word before each line (AutoTrain: ``ERROR Traceback ...``, ``ERROR | 2024-07-23 20:45:55 |
  autotrain.trainers.common:wrapper:121 - 'type'``).

``unfold`` rewrites a chunk's lines only where a line shows one of these shapes by strong evidence (a traceback's
header or frame next to the escape, two frames on one line, an entity or a markup tag); every other line is
returned as it is. kb/diagnose/diagnosis.py imports this module only for a chunk whose text holds a mark of one
(``MARKS``), so a log without them never loads it (`kb diagnose`'s start-up).
"""

from __future__ import annotations

from kb.knowledge.precompiled import Deferred

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (diagnose's start-up)
if TYPE_CHECKING:
    from typing import Any

# What a chunk's text must hold for unfold to be worth calling (plain substring tests, in diagnosis.py): an entity
# or a line-break tag, an escaped newline, a traceback's header with text after it, a level word before a
# traceback's header or frame.
MARKS = ("&quot;", "&#39;", "&#x27;", "&lt;", "&gt;", "&amp;", "<br", "<code", "<pre", "\\n", "last): ", "ERROR Traceback",
         "ERROR File", '", line ')

_TAG = Deferred(r"<(?:br|/?(?:code|pre|p|span|div|b|i|em|strong|kbd|samp|tt|blockquote|li|ul|ol|h[1-6]))"
                r"(?:\s[^<>\n]{0,200})?\s?/?>")
_BREAK = Deferred(r"<br\s?/?>")
_TRAILING_BREAK = Deferred(r"<br\s?/?>\s{0,8}$")
_ENTITY = Deferred(r"&(?:quot|apos|lt|gt|amp|nbsp|#\d{1,6}|#x[0-9a-fA-F]{1,6});")
# (turn 48, issue 26 S3) a numeric reference without its ";" before more digits: read as the ASCII punctuation it starts
# (an encoder that escapes only punctuation wrote `client&#x3d` or `&#x03d` then the token), as redaction's view reads it
# (kb/diagnose/redact/spellings.py). html.unescape reads `&#x3ddckr_pat_...` greedily as one code point (U+03DD, as a
# browser does): the message then quotes the token without its first letter, and no redaction rule knows the rest.
# A reference whose digits end in ";" is left to html.unescape as it is.
# (turn 48) and a reference to NUL (``&#0;``, ``&#00000;``: /proc/<pid>/cmdline's separator between argv's items) is read
# as the space it stands for, not as U+FFFD (html.unescape, as HTML5 says): `--db-password&#0;value` is a flag and its
# value for redaction, not one word
_NUL_REFERENCE = Deferred(r"&#(?:0{1,7}(?![0-9])|[xX]0{1,6}(?![0-9a-fA-F]));?")
_NO_SEMICOLON = Deferred(r"&#(?:[xX]0{0,4}(?:2[0-9a-fA-F]|3[a-fA-F]|40|5[b-fB-F]|60|7[b-eB-E])(?=[0-9a-fA-F])"
                         r"(?![0-9a-fA-F]*;)|0{0,4}(?:3[2-9]|4[0-7]|5[89]|6[0-4]|9[1-6]|12[3-6])(?=[0-9])(?![0-9]*;))")
# Escaped text (a JSON string, a Python repr): a newline escape before what starts a traceback's line (its header, a
# frame, IPython's arrow or numbered code line, an exception line); or two newline escapes, a traceback's word after
# the first of them, and no backslash but an escape's (a Windows path's raw backslashes, "C:\\Users\\nltk", are no
# escapes). A "\\n\\n" alone is a string in a code line or a message's repr ('"\\n\\n".join(parts)'), not a paste.
_ESCAPED = Deferred(r'(?<!\\)\\n(?:\s{0,8}(?:File |Traceback \(|-{1,3}> ?\d|\d{1,6} |in <)'
                    r'|(?:[A-Za-z_]\w{0,80}\.){0,8}(?:[A-Z]\w{0,80})?(?:Error|Exception|Warning): )')
_RAW_BACKSLASH = Deferred(r"\\[^ntr\"'/ub]")
_TRACEBACK_WORDS = ("Traceback", "File ", "Error", "Exception", "--> ")
_NEWLINE_ESCAPE = Deferred(r"(?<!\\)\\n")
# a web UI's level word before a traceback's lines ("ERROR Traceback (most recent call last):", "ERROR File ...")
_LEVEL = Deferred(r"^(?:ERROR|INFO|WARNING|DEBUG|CRITICAL) {1,4}(?=Traceback \(most recent call last\)|\s{0,8}File \")")
_LEVEL_ANY = Deferred(r"^(?:ERROR|INFO|WARNING|DEBUG|CRITICAL) (?=\s{0,16}\S)")
# loguru's record as AutoTrain prints it: "ERROR | 2024-07-23 20:45:55 | autotrain.trainers.common:wrapper:121 - "
_LOGURU = Deferred(r"(?:^|\s)(?:ERROR|INFO|WARNING|DEBUG|CRITICAL|SUCCESS)\s{0,4}\|\s{0,4}\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"
                   r"(?:[.,]\d{1,6})?\s{0,4}\|\s{0,4}[\w.:<>-]{1,200}\s{1,4}-\s")
# a frame's head, as Python prints it or as IPython does (``File ~/x.py:109, in f(a, b)``, its arguments included)
_HEAD = (r'File (?:"[^"\n]{1,500}", line \d{1,7}, in [\w<>.]{1,200}'
         r'|[~/][^\s:]{0,500}:\d{1,7}, in [\w<>.]{1,200}(?:\([^()\n]{0,500}\))?)')
_FRAME = Deferred("^(" + _HEAD + r")\s{0,8}")
_FRAME_ANY = Deferred(_HEAD)
# a flattened traceback's pieces start at its header, a chained exception's sentence, or a frame
_SENTENCES = (r"(?:Original )?Traceback \(most recent call last\):|During handling of the above exception, another "
              r"exception occurred:|The above exception was the direct cause of the following exception:")
_PIECE = Deferred(r"(?:^|(?<=\s))(?=" + _SENTENCES + r"|File (?:\"[^\"\n]{1,500}\", line \d|[~/][^\s:]{0,500}:\d{1,7}, in ))")
_SENTENCE = Deferred("^(" + _SENTENCES + r")\s{0,8}")
_HEADER_TEXT = Deferred(r"call last\):\s{0,8}\S")
# the exception line after the raising frame's code: "... config.rope_scaling["type"]) KeyError: 'type'"
_EXCEPTION = Deferred(r"(?:^|\s)(?=(?:[A-Za-z_]\w{0,80}\.){0,8}(?:[A-Z]\w{0,80})?(?:Error|Exception|Warning|Interrupt|Exit|"
                      r"Iteration|Failure|Fault|Timeout):\s)")


def unfold(lines: list[str]) -> list[str]:
    """The chunk's lines with every forum shape undone; ``lines`` itself when no line shows one."""
    out: list[str] | None = None
    level = any(_LEVEL.match(line) for line in lines if line[:1] in "EIWDC")
    for k, line in enumerate(lines):
        pieces = _unfold_line(line, level)
        if pieces is not None:
            if out is None:
                out = lines[:k]
            out.extend(pieces)
        elif out is not None:
            out.append(line)
    return lines if out is None else out


def _unfold_line(line: str, level: bool) -> list[str] | None:
    """The lines one pasted line stands for, or None when it is Python's own line."""
    changed = False
    if ("&" in line or "<" in line) and (_ENTITY.search(line) or _TAG.search(line)):
        line = _markup(line)
        changed = True
    if "\\n" in line and _escaped(line):
        parts = [_unescape(p) for p in _NEWLINE_ESCAPE.split(line)]
        return [q for p in parts for q in (_flat(p) or [p])]
    if level and _LEVEL_ANY.match(line):
        line = _LEVEL_ANY.sub("", line, count=1)
        changed = True
    if "| 2" in line and _LOGURU.search(line):
        line = _LOGURU.sub("\n", line).strip()
        changed = True
    flat = _flat(line)
    if flat is not None:
        return flat
    return [line] if changed else None


def _markup(line: str) -> str:
    from html import unescape  # (only for a line that holds markup)

    broken = _BREAK.sub("\n", _TRAILING_BREAK.sub("", line))  # (a break that ends the line is its own line end)
    if "&#" in broken:
        broken = _NO_SEMICOLON.sub(_with_semicolon, _NUL_REFERENCE.sub(" ", broken))
    return unescape(_TAG.sub("", broken)).replace("\xa0", " ")


def _with_semicolon(m: Any) -> str:
    return m.group() + ";"


def _escaped(line: str) -> bool:
    if _ESCAPED.search(line):
        return True
    after = line[line.find("\\n"):]
    return (line.count("\\n") >= 2 and any(w in after for w in _TRACEBACK_WORDS)
            and not _RAW_BACKSLASH.search(line.replace("\\\\", "")))


def _unescape(part: str) -> str:
    return part.replace('\\"', '"').replace("\\'", "'").replace("\\t", "    ").replace("\\\\", "\\")


def _frames_joined(line: str) -> bool:
    """Two frames' heads on one line, or one with an exception line after it: Python prints neither. One head with
    other text after it is Python's own line (jinja's ``File "<template>", line 1, in top-level template code``,
    a debugger's ``(Current frame)``)."""
    heads = list(_FRAME_ANY.finditer(line))
    if len(heads) >= 2:
        return True
    return bool(heads) and _EXCEPTION.search(line, heads[0].end()) is not None


def _flat(line: str) -> list[str] | None:
    """A flattened traceback's lines (header, chain sentences, frames with their code, the exception line), or None
    when the line is not one: two frames' heads on the line, one with an exception line after it, or the header with
    text after it."""
    if "\n" in line:  # markup or a log record made line breaks
        parts = line.split("\n")
        return [q for p in parts for q in (_flat(p) or [p])]
    if "File " not in line and "call last): " not in line:
        return None
    if not (_HEADER_TEXT.search(line) or _frames_joined(line)):
        return None
    starts = sorted({0, *(m.start() for m in _PIECE.finditer(line))})
    pieces = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [len(line)])]
    pieces = [p for p in pieces if p.strip(" >|")]
    out: list[str] = []
    for i, piece in enumerate(pieces):
        m = _SENTENCE.match(piece)
        if m:
            out.append(m[1])
            piece = piece[m.end():]
            if not piece:
                continue
        m = _FRAME.match(piece)
        if m is None:
            out.append(piece)
            continue
        out.append("  " + m[1])
        code = piece[m.end():]
        if not code:
            continue
        if i + 1 == len(pieces) or not pieces[i + 1].startswith("File "):  # the frame that raised
            e = _EXCEPTION.search(code)
            if e is not None:
                head, tail = code[:e.start()].strip(), code[e.start():].strip()
                if head:
                    out.append("    " + head)
                out.append(tail)
                continue
        out.append("    " + code)
    return out
