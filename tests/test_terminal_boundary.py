"""No input can drive the terminal through kb's output (issue 26, E1 and E2).

Before: escape stripping ran once, so nested sequences rebuilt a live OSC 52 clipboard write; ESC c,
private CSI forms, a lone ESC, backspaces, BEL, DEL, VT/FF, C1 controls, bidi overrides and zero-width
characters reached the terminal raw, and `kb env` printed config values and other users' process names
raw. Every byte kb writes now passes kb/render/sanitize.py's sanitize_for_terminal (kb/cli/output.py's TerminalWriter); the property tests below
run the real commands in-process on hostile input and look at what they wrote.
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from types import SimpleNamespace

import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kb.cli import main
from kb.cli.output import Style, TerminalWriter
from kb.render.sanitize import escape_json_text, sanitize_for_terminal

ERROR = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"
BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff\U000e0041"
C1 = "".join(map(chr, range(0x80, 0xA0)))
# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): characters that render as nothing.
IGNORABLE = [(0xAD, 0xAD), (0x34F, 0x34F), (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
             (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
             (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
             (0xE0000, 0xE0FFF)]
# What must never reach the terminal raw: ESC, C0 but newline and tab, DEL, C1, every format character
# (bidi, zero-width, tags), line and paragraph separators, lone surrogates, default-ignorable characters.
FORBIDDEN = (set(map(chr, range(0x20))) - {"\n", "\t"} | {"\x7f"} | set(C1) | set(BIDI) | set(ZERO_WIDTH)
             | {chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cc", "Cf", "Cs", "Zl", "Zp")}
             | {chr(c) for lo, hi in IGNORABLE for c in range(lo, hi + 1)}) - {"\n", "\t"}

# Pieces attackers use, nested and cut up by the strategies below.
PIECES = ["\x1b]52;c;Y3VybCBldmlsIHwgc2g=\x07", "\x1b]0;title\x1b\\", "\x1b]8;;http://evil/\x1b\\", "\x1bc",
          "\x1b[?1049h", "\x1b[2J", "\x1b[", "\x1b]", "\x1b", "\x9b31m", "\x9d0;t\x9c", "\x08" * 5, "\x07", "\x7f",
          "\x0b\x0c", "\r", "\x1bP1$r\x1b\\", "\x1b(B", "\x1b[38;5;1m", "\u202e", "\u200b", "\x00"]
HOSTILE = st.lists(st.one_of(st.sampled_from(PIECES), st.text(alphabet=st.sampled_from(
    list("ab ]:;[\\/0123456789") + ["\x1b", "\x07", "\x9c", "\x9b", "\x9d", "\u202e", "\u2066", "\u200d"]),
    max_size=12)), max_size=10).map("".join)
SETTINGS = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def assert_safe(text: str) -> None:
    bad = sorted({hex(ord(c)) for c in text if c in FORBIDDEN})
    assert not bad, f"raw {bad} in the output"


def run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(args)
    out, err = capsys.readouterr()
    assert "Traceback (most recent call last)" not in err
    return code, out + err


# --------------------------------------------------------------------------- the function


@pytest.mark.parametrize(("raw", "shown"), [
    ("a\x1b]52;c;ZWNobw==\x07b", "ab"),  # OSC 52 clipboard write: removed
    ("x\x1b]\x1b]52;c;x\x07\x07", "x\\x07"),  # nested: removing one rebuilds nothing live
    ("\x1b[\x1b[31m31mred", "31mred"),
    ("reset\x1bc", "reset"),
    ("hide\x1b[?25l", "hide"),
    ("lone \x1b", "lone \\x1b"),
    ("abc\x08\x08\x08xyz", "abc\\x08\\x08\\x08xyz"),
    ("bel\x07 del\x7f vt\x0b ff\x0c cr\r", "bel\\x07 del\\x7f vt\\x0b ff\\x0c cr\\x0d"),
    ("c1 \x9b31m csi \x9d0;t\x9c osc", "c1  csi  osc"),
    ("c1 lone \x85", "c1 lone \\x85"),
    ("evil\u202etxt.exe zw\u200bsp", "evil\\u202etxt.exe zw\\u200bsp"),
    ("hidden tags\U000e0041\U000e0042", "hidden tags\\U000e0041\\U000e0042"),  # invisible "AB"
    ("hangul\u3164filler\u115f\uffa0", "hangul\\u3164filler\\u115f\\uffa0"),  # Lo, but blank
    ("vs\ufe0f\ufe00\U000e0100 cgj\u034f khmer\u17b4 fvs\u180b", "vs\\ufe0f\\ufe00\\U000e0100 cgj\\u034f khmer\\u17b4 fvs\\u180b"),
    ("shy\u00ad dep\u206a music\U0001d173 arabic\u0600\u06dd", "shy\\xad dep\\u206a music\\U0001d173 arabic\\u0600\\u06dd"),
    ("sep\u2028\u2029", "sep\\u2028\\u2029"),
    ("not utf-8 \udcff\udc9b", "not utf-8 \\udcff\\udc9b"),  # a file name's undecodable bytes
    ("osc 8-bit st \x1b]0;t\x9cx dcs \x1bPq\x1b\\ apc \x1b_G\x1b\\ pm \x1b^p\x07 sos \x1bXs\x9c.", "osc 8-bit st x dcs  apc  pm  sos ."),
    ("csi \x1b[1 q\x1b[>4;2m\x1b[=5h\x9b?25l.", "csi ."),
    ("tab\tand\nnewline kept, é ü 中文 kept", "tab\tand\nnewline kept, é ü 中文 kept"),
])
def test_sanitize_for_terminal(raw: str, shown: str) -> None:
    assert sanitize_for_terminal(raw) == shown


@given(st.text())
@settings(max_examples=300, deadline=None)
def test_sanitize_never_leaves_a_control(text: str) -> None:
    clean = sanitize_for_terminal(text)
    assert_safe(clean)
    assert sanitize_for_terminal(clean) == clean  # idempotent: escaping is visible text


def test_every_control_format_and_ignorable_character_is_escaped() -> None:
    """The whole class, from the running Python's Unicode data: not only the characters listed above."""
    everything = "|".join(sorted(FORBIDDEN))  # "|": a high surrogate next to a low one would read as one pair
    clean = sanitize_for_terminal(everything)
    assert_safe(clean)
    dumped = escape_json_text(json.dumps(everything, ensure_ascii=False))
    assert_safe(dumped)
    assert json.loads(dumped) == everything
    kept = "é ü 中文 ❤ 😀 \u00a0 \u3000 \u2800 ok"  # visible non-ASCII text is left alone
    assert sanitize_for_terminal(kept) == kept


@given(st.text(alphabet=st.characters(codec=None, categories=None)))
@settings(max_examples=300, deadline=None)
def test_sanitize_never_leaves_a_control_surrogates_included(text: str) -> None:
    assert_safe(sanitize_for_terminal(text))
    dumped = escape_json_text(json.dumps(text, ensure_ascii=False))
    assert_safe(dumped)
    assert json.loads(dumped) == json.loads(json.dumps(text))  # what ensure_ascii's escapes read back as


@given(HOSTILE)
@settings(max_examples=300, deadline=None)
def test_json_escapes_keep_the_data_and_no_control_is_raw(text: str) -> None:
    dumped = escape_json_text(json.dumps({text: [text]}, ensure_ascii=False))
    assert_safe(dumped.replace("\n", ""))
    assert json.loads(dumped) == {text: [text]}


def test_only_kbs_own_colours_reach_a_terminal() -> None:
    """On a terminal Style's marks become SGR codes; an input's SGR code, or a forged mark, does not."""

    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    writer = TerminalWriter(tty)
    style = Style(writer)
    assert style.on
    writer.write(style("title", "1") + " \x1b[8mhidden\x1b[0m \ue000forged1\ue001 " + style("\x1b]52;c;x\x07ok", "32"))
    assert tty.getvalue() == "\x1b[1mtitle\x1b[0m hidden \ue000forged1\ue001 \x1b[32mok\x1b[0m"


# --------------------------------------------------------------------------- the commands


@given(before=HOSTILE, inside=HOSTILE, after=HOSTILE)
@SETTINGS
def test_kb_diagnose_writes_nothing_raw(before: str, inside: str, after: str, tmp_path: Path,
                                        capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "hostile.log"
    text = (f"{before}\nTraceback (most recent call last):\n  File \"/home/u/{inside}t.py\", line 3, in f{inside}\n"
            f"    x = a @ b {inside}\n{ERROR} {inside}\n{after}\n{inside}Error: {after}\n")
    log.write_text(text, encoding="utf-8", errors="surrogatepass")
    for fmt in ("text", "json"):
        code, out = run(["diagnose", str(log), "--format", fmt], capsys)
        assert code in (0, 1, 2)
        assert_safe(out)
        if fmt == "json" and code in (0, 1):
            json.loads(out)


class HostileNvml:
    """A pynvml stand-in whose names are the attacker's (a GPU name, other users' process names)."""

    class NVMLError(Exception):
        pass

    def __init__(self, name: str) -> None:
        self.name = name

    def nvmlInit(self) -> None: ...
    def nvmlShutdown(self) -> None: ...
    def nvmlSystemGetDriverVersion(self) -> str: return "570.86" + self.name
    def nvmlSystemGetCudaDriverVersion(self) -> int: return 12080
    def nvmlDeviceGetCount(self) -> int: return 1
    def nvmlDeviceGetHandleByIndex(self, i: int) -> int: return i
    def nvmlDeviceGetName(self, h: int) -> str: return "Tesla T4" + self.name
    def nvmlDeviceGetUUID(self, h: int) -> str: return "GPU-1234" + self.name
    def nvmlDeviceGetMemoryInfo(self, h: int) -> SimpleNamespace:
        return SimpleNamespace(total=16 * 2**30, free=2**30, used=15 * 2**30)
    def nvmlDeviceGetCudaComputeCapability(self, h: int) -> tuple[int, int]: return (7, 5)
    def nvmlDeviceGetComputeRunningProcesses(self, h: int) -> list[SimpleNamespace]:
        return [SimpleNamespace(pid=4242, usedGpuMemory=2**30)]
    def nvmlSystemGetProcessName(self, pid: int) -> str: return "/usr/bin/" + self.name
    def nvmlDeviceGetMigMode(self, h: int) -> tuple[int, int]: raise self.NVMLError("Not Supported" + self.name)


@given(value=HOSTILE)
@SETTINGS
def test_kb_env_writes_nothing_raw(value: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.env import report

    monkeypatch.setattr(report, "_import_pynvml", lambda: HostileNvml(value))
    variable = value.replace("\x00", "")  # the environment cannot hold NUL
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0," + variable)
    monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", variable)
    monkeypatch.setenv("MASTER_PORT", variable)
    config = tmp_path / "args.json"
    config.write_text(json.dumps({"per_device_train_batch_size": value, "bf16": value, "optim": value,
                                  value: value}), encoding="utf-8")
    for fmt in ("text", "json"):
        code, out = run(["env", "--config", str(config), "--format", fmt], capsys)
        assert code in (0, 1, 2)
        assert_safe(out)


@given(value=HOSTILE)
@SETTINGS
def test_kb_show_writes_nothing_raw(value: str, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """A knowledge file is input too (a checkout from a fork, a KB_KNOWLEDGE_DIR)."""
    from kb.knowledge import registry
    from kb.knowledge.model import Case

    real = registry.find_case("KB0001")
    meta = copy.deepcopy(real.meta)
    meta["title"] = "title " + value
    meta["summary"] = "summary " + value
    meta["setting"] = value
    sections = {heading: f"{body}\n{value}\n" for heading, body in real.sections.items()}
    hostile = Case(meta, real.file, sections, [s.literal for s in real.signatures])
    monkeypatch.setattr(registry, "find_case", lambda _ref: hostile)
    for fmt in ("text", "json"):
        code, out = run(["show", "KB0001", "--format", fmt], capsys)
        assert code == 0
        assert_safe(out)
        assert "summary" in out
