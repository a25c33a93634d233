"""What the red teams' tests share (tests/test_hostile_turn38.py, 39, 40: issue 26): the turn's forms of the secret corpus
through redact() and through `kb diagnose`'s pipeline, a token standing alone or cut in two, the hypothesis settings,
the shapes with a keyword prefix, and `python -m kb` in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import zlib
from pathlib import Path

from hypothesis import HealthCheck, settings

from kb.diagnose.redact import redact
from secret_corpus import PIECE, Form, fill, forms
from test_redaction_properties import SHAPES, WRAP_GAPS

REPO = Path(__file__).resolve().parent.parent
SETTINGS = settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
# shapes with a keyword prefix of 3 characters or more and a body long enough to be cut in two pieces of 8
PREFIXED = [s for s in SHAPES if len(s["prefix"]) >= 3 and "\n" not in s["prefix"] and " " not in s["prefix"]
            and len(fill(s["body"], "x")) >= 2 * PIECE + 4]
# those a wrap or a break may cut anywhere: the shapes whose cut forms are known to leak (WRAP_GAPS: none since fuzz43,
# test_the_former_wrap_gaps_are_closed) left out, as test_a_token_cut_across_two_lines_never_shows_its_secret leaves them
CUTTABLE = [s for s in PREFIXED if s["id"] not in WRAP_GAPS]


def turn_forms(turn: int) -> list[Form]:
    """The secret corpus's forms that red team's turn wrote (its shape, context, name or placement)."""
    return [f for f in forms() if f.turn == turn]


def redact_leaks(corpus: list[Form]) -> dict[str, list[str]]:
    """The forms whose secret redact() shows (their id: the pieces shown)."""
    out = {}
    for form in corpus:
        leaked = form.leaks(redact(form.text))
        if leaked:
            out[form.id] = leaked
    return out


def sample(corpus: list[Form], every: int, skip: set[str] | frozenset[str] = frozenset()) -> list[Form]:
    """One form in ``every``, fixed by its id's CRC (the same sample each run), but those in ``skip``."""
    return [f for f in corpus if zlib.crc32(f.id.encode()) % every == 0 and f.id not in skip]


def diagnose_leaks(corpus: list[Form]) -> dict[str, list[str]]:
    """The forms whose secret `kb diagnose` shows: its text (short and full) and its JSON document."""
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.index import load_index
    from kb.render.diagnosis import format_diagnosis

    knowledge = load_index()
    out = {}
    for form in corpus:
        doc = diagnosis_document(diagnose_lines(form.text.splitlines(keepends=True), knowledge))
        shown = format_diagnosis(doc) + format_diagnosis(doc, full=True) + json.dumps(doc, ensure_ascii=False)
        leaked = form.leaks(shown)
        if leaked:
            out[form.id] = leaked
    return out


def alone(shape: dict) -> tuple[str, str]:
    """(an error line holding a token of ``shape`` and nothing else secret, the token's secret part)."""
    body = fill(shape["body"], shape["id"])
    return f"ValueError: the session {shape['prefix']}{body}{shape.get('suffix', '')} was rejected\n", body


def cut_token(text: str, token: str, body: str, cut: float, brk: str) -> str:
    """``text`` with ``brk`` put inside ``token``'s body: at least 4 characters after its prefix and 4 before its end,
    ``cut`` (0 to 1) of the way between."""
    at = text.index(token) + len(token) - len(body)
    k = at + 4 + int(cut * (len(body) - 8))
    return text[:k] + brk + text[k:]


def run_kb(args: list[str], env: dict[str, str], timeout: float = 60) -> subprocess.CompletedProcess[bytes]:
    """``python -m kb ARGS`` from this checkout, with ``env`` added to the environment."""
    return subprocess.run([sys.executable, "-m", "kb", *args], cwd=REPO, capture_output=True, timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(REPO), **env})
