"""The secret corpus (tests/fixtures/secrets/forms.toml) as concrete forms: each a log text holding a
FAKE secret, generated here at run time from the file's specs, and the secret's private part.

Used by tests/test_redaction_corpus.py and benchmarks/redaction_corpus.py.
"""

from __future__ import annotations

import functools
import random
import re
import tomllib
import zlib
from collections.abc import Callable
from pathlib import Path

CORPUS = Path(__file__).parent / "fixtures" / "secrets" / "forms.toml"
PIECE = 8  # a leak: any 8 characters of a secret's private part in an output

_CLASSES = {
    "d": "0123456789", "h": "0123456789abcdef", "H": "0123456789ABCDEF",
    "a": "abcdefghijklmnopqrstuvwxyz0123456789", "U": "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789",
    "A": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789",
    "L": "abcdefghijklmnopqrstuvwxyz", "M": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz",
    "b": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
    "u": "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    "c": "qpzry9x8gf2tvdw0s3jn54khce6mua7l".upper(),
}
_SPEC = re.compile(r"\{([a-zA-Z]):(\d+)\}")


class Form:
    """One log text and the private part of the secret it holds.

    ``make`` (for the corpus's own forms): a function that gives ``(text, secret)``, called when either is first read.
    The id, class and turn are known without it, so that a test module can choose and parametrize its forms at
    collection without generating them: each pytest-xdist worker then generates only the forms its own tests read
    (every worker generated all 58,000 at collection before, ~3-4 s of CPU each)."""

    def __init__(self, id: str, text: str | None, secret: str | None, cls: str = "S1", turn: int = 0,
                 make: Callable[[], tuple[str, str]] | None = None) -> None:
        self.id, self._text, self._secret, self._make = id, text, secret, make
        self.turn = turn  # the red team's turn that wrote the form's shape, context, name or placement (0: before 38)
        self.cls = cls  # the class: S1 token shape, S2 name context, S3 escaped, S4 wrapped, S5 section

    def _made(self) -> None:
        if self._make is not None:
            self._text, self._secret = self._make()
            self._make = None

    @property
    def text(self) -> str:
        self._made()
        return self._text  # type: ignore[return-value]

    @property
    def secret(self) -> str:
        self._made()
        return self._secret  # type: ignore[return-value]

    def leaks(self, output: str) -> list[str]:
        """The pieces of the secret (PIECE characters) that ``output`` shows."""
        pieces = {self.secret[i:i + PIECE] for i in range(len(self.secret) - PIECE + 1)}
        return sorted(p for p in pieces if p in output and "\n" not in p)


def _run(rng: random.Random, cls: str, n: int) -> str:
    chars = _CLASSES[cls]
    below = rng._randbelow  # what rng.choice(chars) calls: the same draws, without a method call per character
    size = len(chars)
    while True:
        out = "".join([chars[below(size)] for _ in range(n)])
        # a random key of 8 characters or more has a digit and (mixed classes) both cases: make sure of it
        if n < 8 or cls in "dhHLc" or (any(c.isdigit() for c in out) if cls in "aU" else
                                       any(c.isupper() for c in out) and any(c.islower() for c in out)
                                       and (cls == "M" or any(c.isdigit() for c in out))):
            return out


def fill(spec: str, seed: str) -> str:
    rng = random.Random(zlib.crc32(seed.encode()))
    return _SPEC.sub(lambda m: _run(rng, m.group(1), int(m.group(2))), spec)


def _wrapped(text: str, token_at: int, prefix: str, body: str, line_prefix: str = "", brk: str = "\n",
             line_suffix: str = "", cut_at: int | str | None = None) -> str:
    """``text`` with a line break inside the token's body, as a terminal's width would put it; ``line_prefix``
    starts the second line (a launcher's ``[rank0]: `` before each line it relays), ``line_suffix`` ends the first
    (a panel's border); ``brk`` is the break (a carriage return, or what else cuts a token: an invisible character,
    a colour change); ``cut_at`` (turn 39): where in the body the cut falls (0: right after the prefix; negative:
    that many characters before the body's end; turn 40: ``"end"``, right after the body, where a rule's lookahead
    wants the character the wrap moved), instead of its middle."""
    if cut_at == "end":
        offset = len(body)
    elif cut_at is None:
        offset = max(4, len(body) // 2)
    else:
        offset = cut_at if cut_at >= 0 else max(0, len(body) + cut_at)
    cut = token_at + len(prefix) + offset
    return text[:cut] + line_suffix + brk + line_prefix + text[cut:]


def _folded(text: str, width: int, brk: str = "\n", prefix: str = "") -> str:
    """``text`` as a terminal of ``width`` columns shows it when its output is copied: every line longer than the
    width cut into pieces of ``width`` characters (turn 39; ``brk``: what ends a piece, e.g. an SGR reset and a
    line end as rich writes a soft wrap; turn 42, ``prefix``: what a launcher writes before each piece after the
    first, srun -l's ``0: `` over a narrow pane)."""
    out = []
    for line in text.split("\n"):
        pieces = [line[i:i + width] for i in range(0, len(line), width)] or [""]
        out.append((brk + prefix).join(pieces))
    return "\n".join(out)


def _base64(form: str, secret: str, mime: bool) -> tuple[str, str]:
    """``form`` as `echo "$form" | base64` writes it (a line end after it; lines of 76 characters when ``mime``),
    and the base64 characters that encode only the secret's bytes (what must not be shown)."""
    import base64

    raw = (form + "\n").encode()
    encoded = base64.b64encode(raw).decode()
    at = len(form[:form.index(secret)].encode())
    end = at + len(secret.encode())
    inner = encoded[-(-at // 3) * 4:end // 3 * 4]
    if mime:
        encoded = "\n".join(encoded[i:i + 76] for i in range(0, len(encoded), 76))
    return encoded, inner


def _encoded39(form: str, secret: str, how: str) -> tuple[str, str]:
    """Turn 39's encodings of a whole form, and the encoded characters that hold only the secret: ``base64url``
    (no padding, as a JWT or a Kubernetes manifest writes it), ``base64-twice`` (the base64 of a base64),
    ``url-base64`` (base64 whose ``+/=`` are then URL-encoded)."""
    import base64
    from urllib.parse import quote

    def inner_b64(raw: bytes, part: bytes, encoded: str) -> str:
        at = raw.index(part)
        end = at + len(part)
        return encoded[-(-at // 3) * 4:end // 3 * 4]

    raw = form.encode()
    if how == "base64url":
        encoded = base64.urlsafe_b64encode(raw).decode().rstrip("=")
        return encoded, inner_b64(raw, secret.encode(), base64.urlsafe_b64encode(raw).decode())
    if how == "base64-twice":
        once = base64.b64encode(raw)
        twice = base64.b64encode(once).decode()
        inner = inner_b64(raw, secret.encode(), once.decode())
        return twice, inner_b64(once, inner.encode(), twice)
    if how == "url-base64":
        once = base64.b64encode(raw).decode()
        inner = inner_b64(raw, secret.encode(), once)
        # the secret's base64 without its characters that URL-encoding changes
        piece = max(re.split(r"[+/=]", inner), key=len)
        return quote(once, safe=""), piece
    raise ValueError(how)


def _escaped(text: str, how: str | None, secret: str = "") -> str:
    """``text`` as a JSON string's inside (``json``; ``json2``: twice, a JSON document inside a JSON string;
    ``go-json``: as Go's encoder writes it, & < > as \\u0026...), HTML-escaped (``html``; ``html-numeric``: every
    character but letters and digits as &#N;), URL-encoded (``url``), as Python's repr of it (``repr``), or with its
    name and value coloured apart (``sgr-kv``: an SGR reset and colour around the first separator before ``secret``,
    as structlog's console renderer writes key=value)."""
    import json

    if how == "json":
        return json.dumps(text, ensure_ascii=False)[1:-1]
    if how == "json2":
        return json.dumps(json.dumps(text, ensure_ascii=False), ensure_ascii=False)[1:-1]
    if how == "go-json":
        inner = json.dumps(text, ensure_ascii=False)[1:-1]
        return inner.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
    if how == "html-numeric":
        return "".join(c if c.isalnum() else f"&#{ord(c)};" for c in text)
    if how == "url":
        from urllib.parse import quote

        return quote(text, safe="")
    if how == "repr":
        return repr(text)[1:-1]
    if how == "sgr-kv":
        at = text.index(secret) if secret else len(text)
        seps = [(text.find(sep), sep) for sep in ("=", ": ", ":") if -1 < text.find(sep) < at]
        if seps:
            i, sep = min(seps)
            return text[:i] + "\x1b[0m" + sep + "\x1b[35m" + text[i + len(sep):]
        return text
    if how == "html":
        import html

        return html.escape(text, quote=True)
    return _escaped39(text, how)


def _escaped39(text: str, how: str | None) -> str:
    """Turn 39's escapes: URL-encoded twice (``url2``), JSON with ``/`` written ``\\/`` as PHP's json_encode does
    (``php-json``), every character but letters and digits as ``&#xN;`` (``html-hex``) or ``\\xNN`` (``js-hex``),
    quoted-printable with its soft line breaks (``qp``), a Python bytes repr (``bytes-repr``), a CSV field (``csv``),
    a shell word as ``printf %q`` writes it (``shell-q``), a Jupyter notebook's traceback string (``ipynb``: coloured
    with SGR, then JSON-escaped: ``\\u001b[0;31m``)."""
    import json

    if how == "url2":
        from urllib.parse import quote

        return quote(quote(text, safe=""), safe="")
    if how == "php-json":
        return json.dumps(text, ensure_ascii=False)[1:-1].replace("/", "\\/")
    if how == "html-hex":
        return "".join(c if c.isalnum() else f"&#x{ord(c):x};" for c in text)
    if how == "js-hex":
        return "".join(c if c.isalnum() or ord(c) > 0x7F else f"\\x{ord(c):02x}" for c in text)
    if how == "qp":
        import quopri

        return quopri.encodestring(text.encode()).decode()
    if how == "bytes-repr":
        return repr(text.encode())[2:-1]
    if how == "csv":
        return text.replace('"', '""')
    if how == "pandas-trunc":  # turn 40: a DataFrame cell as pandas shows it (display.max_colwidth 50)
        return text if len(text) <= 50 else text[:47] + "..."
    if how == "shell-q":
        return "".join("\\" + c if not (c.isalnum() or c in "_-./:@%+,") else c for c in text)
    if how == "dotnet-json":  # turn 41: System.Text.Json's default encoder (HTML-sensitive characters and + as \\uXXXX)
        inner = json.dumps(text, ensure_ascii=False)[1:-1]
        return "".join(f"\\u{ord(c):04X}" if c in "+'<>&`" else c for c in inner)
    if how == "json-u-all":  # turn 41: every character but letters and digits as \\u00XX
        return "".join(c if c.isalnum() and c.isascii() else f"\\u{ord(c):04x}" for c in text)
    if how == "html-named":  # turn 41: HTML5's named entities for punctuation
        names = {":": "&colon;", "=": "&equals;", "/": "&sol;", "_": "&lowbar;", ".": "&period;",
                 "'": "&apos;", '"': "&quot;", "&": "&amp;", "<": "&lt;", ">": "&gt;", "@": "&commat;"}
        return "".join(names.get(c, c) for c in text)
    if how == "octal":  # turn 41: C's octal escapes (git's quoted paths, printf %b)
        return "".join(c if c.isalnum() or c == " " else "".join(f"\\{b:03o}" for b in c.encode()) for c in text)
    if how == "url-lower":  # turn 41: percent-encoding with lower-case hex (.NET's HttpUtility.UrlEncode)
        from urllib.parse import quote

        return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), quote(text, safe=""))
    return _escaped42(text, how) if how in _ESCAPES42 else _ipynb(text, how)


_ESCAPES42 = ("html-dec-zeropad", "html-no-semicolon", "html-hex-upper", "md-escape", "java-props", "perl-hex-brace",
              "py-U8", "url-plus")


def _escaped42(text: str, how: str) -> str:
    """Turn 42's escapes: HTML decimal entities with leading zeros (``&#0061;``) and without their semicolon
    (``&#61``, which browsers read), upper-case hex entities (``&#X3D;``), Markdown's backslash before punctuation (a
    forum's editor: ``HF\\_TOKEN``), Java properties' escaped ``:`` ``=`` and ``\\``, Perl's ``\\x{3d}``, Python's
    ``\\U0000003d``, and a form body (``urllib.parse.quote_plus``: ``+`` for a space)."""
    if how == "html-dec-zeropad":
        return "".join(c if c.isalnum() else f"&#{ord(c):05d};" for c in text)
    if how == "html-no-semicolon":
        return "".join(c if c.isalnum() or c == " " else f"&#{ord(c)}" for c in text)
    if how == "html-hex-upper":
        return "".join(c if c.isalnum() else f"&#X{ord(c):X};" for c in text)
    if how == "md-escape":
        return re.sub(r"([\\`*_{}\[\]()#+\-.!|<>~])", r"\\\1", text)
    if how == "java-props":
        return text.replace("\\", "\\\\").replace(":", "\\:").replace("=", "\\=")
    if how == "perl-hex-brace":
        return "".join(c if c.isalnum() or c == " " else f"\\x{{{ord(c):x}}}" for c in text)
    if how == "py-U8":
        return "".join(c if c.isalnum() or c == " " else f"\\U{ord(c):08x}" for c in text)
    from urllib.parse import quote_plus

    return quote_plus(text)


def _ipynb(text: str, how: str | None) -> str:
    import json

    if how == "ipynb":
        colored = "\x1b[0;31m" + text.replace(": ", "\x1b[0m: \x1b[0;32m", 1) + "\x1b[0m"
        return json.dumps(colored)[1:-1]
    return text


def forms(path: Path = CORPUS) -> list[Form]:
    """Every form of the corpus file; listed once per process (seven test modules read the same 58,000 forms at
    collection, which took a third of the suite's collection time before), each form's text generated when it is
    first read (``Form``)."""
    return list(_forms(path))


@functools.cache
def _forms(path: Path) -> tuple[Form, ...]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    out: list[Form] = []
    for shape in data["shape"]:
        for context in data["context"]:
            if context.get("wrap") and shape.get("multiline"):
                continue
            if context.get("skip_statistical") and shape.get("statistical"):
                continue
            if shape["id"] in context.get("skip_shapes", ()):
                continue
            fid = f"{shape['id']}@{context['id']}"
            if context.get("sample") and zlib.crc32(fid.encode()) % context["sample"]:
                continue  # (turn 42) a context crossed with one shape in ``sample`` (fixed by the form's id)
            out.append(Form(fid, None, None, context.get("class", "S1"), max(shape.get("turn", 0), context.get("turn", 0)),
                            functools.partial(_shape_form, shape, context, fid)))
    for named in data["named"]:
        for placement in data["placement"]:
            if placement.get("single_line") and "\n" in named["text"].replace("\\n", ""):
                continue
            if placement["id"] not in named.get("placements", [placement["id"]]):
                continue
            fid = f"{named['id']}@{placement['id']}"
            if placement.get("sample") and zlib.crc32(fid.encode()) % placement["sample"]:
                continue
            cls, turn = placement.get("class", "S2"), max(named.get("turn", 0), placement.get("turn", 0))
            if placement.get("wrap"):  # generated now: whether the corpus holds the form depends on its text
                made = _named_form(named, placement, fid)
                if made is not None:
                    out.append(Form(fid, *made, cls, turn))
                continue
            out.append(Form(fid, None, None, cls, turn, functools.partial(_named_form, named, placement, fid)))
    return tuple(out)


def _shape_form(shape: dict, context: dict, fid: str) -> tuple[str, str]:
    """The text and secret of a token shape's form in a context."""
    body = fill(shape["body"], fid)
    token = shape["prefix"] + body + shape.get("suffix", "")
    template = context["text"]
    text = template.replace("{token}", token)
    if context.get("wrap"):
        text = _wrapped(text, template.index("{token}"), shape["prefix"], body, context.get("wrap_prefix", ""),
                        context.get("wrap_break", "\n"), context.get("wrap_suffix", ""), context.get("cut_at"))
    if context.get("fold"):
        text = _folded(text, context["fold"], context.get("wrap_break", "\n"), context.get("fold_prefix", ""))
    if context.get("crlf"):
        text = text.replace("\r\n", "\n").replace("\n", "\r\n")
    return text, body


def _named_form(named: dict, placement: dict, fid: str) -> tuple[str, str] | None:
    """The text and secret of a secret-like name's form in a placement; None where a wrap placement's escape changed
    the secret's own characters (the corpus leaves that form out)."""
    secret = fill(named["body"], fid)
    form = _escaped(named["text"].replace("{secret}", secret), placement.get("escape"), secret)
    if placement.get("encode") in ("base64", "base64-mime"):
        form, secret = _base64(form, secret, placement["encode"] == "base64-mime")
    elif placement.get("encode"):
        form, secret = _encoded39(form, secret, placement["encode"])
    text = placement["text"].replace("{form}", form)
    if placement.get("wrap"):
        if secret not in text:  # an escape changed the secret's own characters (a JSON \\n inside a key)
            return None
        at = text.index(secret)
        text = _wrapped(text, at, "", secret, placement.get("wrap_prefix", ""),
                        placement.get("wrap_break", "\n"), placement.get("wrap_suffix", ""),
                        placement.get("cut_at"))
    if placement.get("fold"):
        text = _folded(text, placement["fold"], placement.get("wrap_break", "\n"), placement.get("fold_prefix", ""))
    return text, secret


@functools.cache
def _by_id(path: Path = CORPUS) -> dict[str, Form]:
    return {f.id: f for f in _forms(path)}


def form(fid: str) -> Form:
    """The corpus's form of this id (``shape@context``); a KeyError names an id the corpus no longer makes."""
    return _by_id()[fid]


def closed_forms_test(ids: list[str]):  # -> a pytest test function
    """A test, one item per id, that each of these corpus forms shows no piece of its secret through redact(): the
    forms a turn closed (tests/test_redaction_leaks4x.py: ``test_... = closed_forms_test(CLOSED)``)."""
    import pytest

    @pytest.mark.parametrize("fid", ids)
    def test(fid: str) -> None:
        from kb.diagnose.redact import redact

        corpus_form = form(fid)
        assert not corpus_form.leaks(redact(corpus_form.text)), fid

    return test
