"""The secret corpus (tests/fixtures/secrets/forms.toml) as concrete forms: each a log text holding a
FAKE secret, generated here at run time from the file's specs, and the secret's private part.

Used by tests/test_redaction_corpus.py and benchmarks/redaction_corpus.py.
"""

from __future__ import annotations

import random
import re
import tomllib
import zlib
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
    """One log text and the private part of the secret it holds."""

    def __init__(self, id: str, text: str, secret: str, cls: str = "S1", turn: int = 0) -> None:
        self.id, self.text, self.secret = id, text, secret
        self.turn = turn  # the red team's turn that wrote the form's shape, context, name or placement (0: before 38)
        self.cls = cls  # the class: S1 token shape, S2 name context, S3 escaped, S4 wrapped, S5 section

    def leaks(self, output: str) -> list[str]:
        """The pieces of the secret (PIECE characters) that ``output`` shows."""
        pieces = {self.secret[i:i + PIECE] for i in range(len(self.secret) - PIECE + 1)}
        return sorted(p for p in pieces if p in output and "\n" not in p)


def _run(rng: random.Random, cls: str, n: int) -> str:
    chars = _CLASSES[cls]
    while True:
        out = "".join(rng.choice(chars) for _ in range(n))
        # a random key of 8 characters or more has a digit and (mixed classes) both cases: make sure of it
        if n < 8 or cls in "dhHLc" or (any(c.isdigit() for c in out) if cls in "aU" else
                                       any(c.isupper() for c in out) and any(c.islower() for c in out)
                                       and (cls == "M" or any(c.isdigit() for c in out))):
            return out


def fill(spec: str, seed: str) -> str:
    rng = random.Random(zlib.crc32(seed.encode()))
    return _SPEC.sub(lambda m: _run(rng, m.group(1), int(m.group(2))), spec)


def _wrapped(text: str, token_at: int, prefix: str, body: str, line_prefix: str = "", brk: str = "\n",
             line_suffix: str = "") -> str:
    """``text`` with a line break inside the token's body, as a terminal's width would put it; ``line_prefix``
    starts the second line (a launcher's ``[rank0]: `` before each line it relays), ``line_suffix`` ends the first
    (a panel's border); ``brk`` is the break (a carriage return, or what else cuts a token: an invisible character,
    a colour change)."""
    cut = token_at + len(prefix) + max(4, len(body) // 2)
    return text[:cut] + line_suffix + brk + line_prefix + text[cut:]


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
    return text


def forms(path: Path = CORPUS) -> list[Form]:
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
            body = fill(shape["body"], fid)
            token = shape["prefix"] + body + shape.get("suffix", "")
            template = context["text"]
            text = template.replace("{token}", token)
            if context.get("wrap"):
                text = _wrapped(text, template.index("{token}"), shape["prefix"], body, context.get("wrap_prefix", ""),
                                context.get("wrap_break", "\n"), context.get("wrap_suffix", ""))
            if context.get("crlf"):
                text = text.replace("\r\n", "\n").replace("\n", "\r\n")
            out.append(Form(fid, text, body, context.get("class", "S1"),
                            max(shape.get("turn", 0), context.get("turn", 0))))
    for named in data["named"]:
        for placement in data["placement"]:
            if placement.get("single_line") and "\n" in named["text"].replace("\\n", ""):
                continue
            if placement["id"] not in named.get("placements", [placement["id"]]):
                continue
            fid = f"{named['id']}@{placement['id']}"
            secret = fill(named["body"], fid)
            form = _escaped(named["text"].replace("{secret}", secret), placement.get("escape"), secret)
            if placement.get("encode"):
                form, secret = _base64(form, secret, placement["encode"] == "base64-mime")
            text = placement["text"].replace("{form}", form)
            if placement.get("wrap"):
                at = text.index(secret)
                text = _wrapped(text, at, "", secret, placement.get("wrap_prefix", ""),
                                placement.get("wrap_break", "\n"), placement.get("wrap_suffix", ""))
            out.append(Form(fid, text, secret, placement.get("class", "S2"), max(named.get("turn", 0),
                                                                                 placement.get("turn", 0))))
    return out
