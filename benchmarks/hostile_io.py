"""Hostile input through the real `kb` command line (issue 26: E1, R1-R3, C1, L1, N1, K1-K3).

Each form runs ``python -m kb ...`` in a subprocess from this checkout and is judged on what a user sees:
no traceback, a documented exit code, nothing in standard output or error that a terminal acts on or
hides (ESC, C0 but newline and tab, DEL, C1, lone surrogates, format, bidi, zero-width and other
default-ignorable characters, line and paragraph separators), and a bad input said in one line that
starts with ``kb``. Run: ``python benchmarks/hostile_io.py [--only SUBSTRING] [--jobs N]``; it prints
one line per form and a count per class (exit 1 when any form fails).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import stat
import subprocess
import sys
import tempfile
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

REPO = Path(__file__).resolve().parent.parent
FAKE_NVML = REPO / "benchmarks" / "fake_nvml"
PY = sys.executable
TARGET = [REPO]  # the checkout whose kb runs (--repo: another one, e.g. main before a change)
ERROR = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"
TB = "Traceback (most recent call last):\n  File \"/x/t.py\", line 3, in f\n    x = a @ b\n"

# Unicode's Default_Ignorable_Code_Point (DerivedCoreProperties.txt): invisible wherever they are.
IGNORABLE = [(0xAD, 0xAD), (0x34F, 0x34F), (0x61C, 0x61C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
             (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F),
             (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A),
             (0xE0000, 0xE0FFF)]


def forbidden(char: str) -> bool:
    """Whether ``char`` must never reach a terminal raw."""
    if char in "\n\t":
        return False
    code = ord(char)
    if unicodedata.category(char) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
        return True
    return any(lo <= code <= hi for lo, hi in IGNORABLE)


# E1: forms of escape sequences and invisible characters
ESCAPES = {
    "osc52-bel": "\x1b]52;c;ZXZpbA==\x07", "osc0-st": "\x1b]0;title\x1b\\", "osc8-8bit-st": "\x1b]8;;http://e/\x9clink",
    "osc-c1": "\x9d0;title\x9c", "dcs": "\x1bP1$r0m\x1b\\", "dcs-c1": "\x90q#0;2\x9c", "apc": "\x1b_Gf=100;AAAA\x1b\\",
    "pm": "\x1b^privacy\x1b\\", "sos": "\x1bXstring\x1b\\", "csi-intermediate": "\x1b[1 q", "csi-private": "\x1b[?1049h",
    "csi-gt": "\x1b[>4;2m", "csi-c1": "\x9b?25l", "nested-csi": "\x1b[\x1b[31m31m", "nested-osc": "\x1b]\x1b]52;c;x\x07\x07",
    "overlap": "\x1b\x1b[[2J", "esc-c": "\x1bc", "nf-escape": "\x1b(0", "esc-end": "tail\x1b", "sgr-token": "Runtime\x1b[1mError",
    "bs-overwrite": "safe\x08\x08\x08\x08evil", "bel-del": "\x07\x7f", "vt-ff": "\x0b\x0c", "cr": "ok\roverwrite",
    "nul": "a\x00b", "ls-ps": "\u2028\u2029", "bom": "\ufeff", "zero-width": "\u200b\u200c\u200d\u200e\u200f",
    "bidi": "\u202a\u202b\u202c\u202d\u202e", "isolates": "\u2066\u2067\u2068\u2069", "alm": "\u061c",
    "hangul-fillers": "\u115f\u1160\u3164\uffa0", "tags": "\U000e0001\U000e0065\U000e0076\U000e007f",
    "variation-selectors": "\ufe00\ufe0f\U000e0100\U000e01ef", "soft-hyphen": "\u00ad", "cgj": "\u034f",
    "mongolian-fvs": "\u180b\u180e", "khmer-inherent": "\u17b4\u17b5", "deprecated-format": "\u206a\u206f",
    "musical-format": "\U0001d173\U0001d17a", "arabic-number-sign": "\u0600\u06dd", "interlinear": "\ufff9\ufffb",
    "c1-all": "".join(map(chr, range(0x80, 0xA0))), "surrogate": "\udcff",
}


@dataclass
class Form:
    name: str
    kind: str
    args: list[str]
    stdin: bytes | None = b""
    env: dict[str, str] = field(default_factory=dict)
    codes: tuple[int, ...] = (0, 1, 2)
    close: str = ""  # "out", "in": that standard stream closed
    shell: str = ""  # a shell pipeline instead (SIGPIPE)
    error_line: bool = False  # exit 2 must come with exactly one line on standard error
    says: str = ""  # standard error must hold this
    shows: str = ""  # standard output must hold this
    timeout: float = 60.0
    secrets: tuple[str, ...] = ()  # none of these (8 characters of them or more) may show in stdout or stderr


def _argv(args: list[str]) -> list[bytes]:
    return [os.fsencode(a) for a in args]


_OWN_TRACEBACK = re.compile(rb'Traceback \(most recent call last\):\r?\n\s+File "(?!/x/t\.py)')


def run_form(form: Form) -> tuple[str, list[str], float]:
    env = {**os.environ, "PYTHONPATH": f"{FAKE_NVML}{os.pathsep}{TARGET[0]}", "NO_COLOR": "", **form.env}
    env.pop("NO_COLOR")
    env = {k: v for k, v in env.items() if v is not None}
    problems: list[str] = []
    start = time.perf_counter()
    argv = [os.fsencode(PY), b"-m", b"kb", *_argv(form.args)]
    try:
        if form.shell:
            proc = subprocess.run(["/bin/bash", "-c", form.shell.replace("@KB@", f"'{PY}' -m kb")], cwd=TARGET[0],
                                  capture_output=True, env=env, timeout=form.timeout)
        else:
            def closing() -> None:
                signal.signal(signal.SIGPIPE, signal.SIG_DFL)
                if form.close == "out":
                    os.close(1)
                elif form.close == "in":
                    os.close(0)

            proc = subprocess.run(argv, cwd=TARGET[0], input=form.stdin if form.close != "in" else b"",
                                  stdout=subprocess.PIPE if form.close != "out" else None,
                                  stderr=subprocess.PIPE, env=env,
                                  timeout=form.timeout, preexec_fn=closing)
    except subprocess.TimeoutExpired:
        return form.name, [f"no answer within {form.timeout:.0f} s"], time.perf_counter() - start
    except OSError as exc:  # the form itself cannot be run (an argument past MAX_ARG_STRLEN)
        return form.name, [f"driver: {exc}"], time.perf_counter() - start
    took = time.perf_counter() - start
    out = proc.stdout or b""
    err = proc.stderr or b""
    # kb's own traceback, not one the input held and kb quotes (a form's TB is in /x/t.py)
    if b"Traceback (most recent call last)" in err or _OWN_TRACEBACK.search(out):
        last = err.decode("utf-8", "replace").strip().splitlines()[-1:]
        problems.append(f"traceback ({last[0][:120] if last else ''})")
    code = proc.returncode
    if form.shell:
        lines = out.decode("utf-8", "replace").strip().splitlines()
        code = int(lines[-1]) if lines and lines[-1].isdigit() else -999
        out = b"\n".join(x.encode() for x in lines[:-1])
    if code not in form.codes:
        problems.append(f"exit {code} (expected {form.codes})")
    # what the terminal decodes: UTF-8, or the encoding PYTHONIOENCODING names (`latin-1:strict`: its codec)
    codec = (form.env.get("PYTHONIOENCODING") or "utf-8").split(":")[0] or "utf-8"
    for label, data in (("stdout", out), ("stderr", err)):
        text = data.decode(codec, "surrogateescape" if codec.replace("-", "") == "utf8" else "replace")
        raw = sorted({f"U+{ord(c):04X}" for c in text if forbidden(c)})
        if raw:
            problems.append(f"raw {','.join(raw[:6])}{'...' if len(raw) > 6 else ''} in {label}")
    said = err.decode("utf-8", "replace").strip()
    if code == 2 and form.error_line:
        lines = said.splitlines()
        if len(lines) != 1 or not lines[0].startswith("kb"):
            problems.append(f"exit 2 without one 'kb ...' line: {said[:160]!r}")
    if form.shows and form.shows not in out.decode("utf-8", "replace"):
        problems.append(f"stdout lacks {form.shows!r}")
    if form.says and form.says not in said:
        problems.append(f"stderr lacks {form.says!r}: {said[:160]!r}")
    shown = out.decode("utf-8", "replace") + err.decode("utf-8", "replace")
    for secret in form.secrets:
        if any(secret[i:i + 8] in shown for i in range(len(secret) - 7)):
            problems.append(f"secret {secret[:4]}... shown")
    return form.name, problems, took


def cache_seed(tmp: Path, log: str, name: str) -> Path:
    """A cache folder that kb itself filled by diagnosing ``log`` (the layout a planted one copies): the red teams'
    cache forms (turns 38, 39) start from one each, ``tmp/name``."""
    seed = tmp / name
    seed.mkdir(mode=0o700)
    env = {**os.environ, "XDG_CACHE_HOME": str(seed), "PYTHONPATH": str(REPO)}
    env.pop("KB_CACHE_DIR", None)
    subprocess.run([PY, "-m", "kb", "diagnose", log], cwd=REPO, env=env, capture_output=True, timeout=120)
    return seed


def json_with_bare_floats(doc: dict) -> str:
    """``doc`` as JSON whose "NaN" / "Infinity" / "-Infinity" strings are written bare (JSON5-style numbers that
    Python's json reads as floats)."""
    encoded = json.dumps(doc)
    for word in ("NaN", "Infinity", "-Infinity"):
        encoded = encoded.replace(f'"{word}"', word)
    return encoded


def config_forms(turn: str, configs: list[tuple[str, str, str]], write: Callable[[str, bytes | str], str],
                 secrets: tuple[str, ...], model: str) -> list[Form]:
    """The red teams' config forms (turns 38-41): each config (its name in the form's name, its file's name, its text)
    written once, then `kb env --config` and `kb plan --from` on it, text and JSON, none showing ``secrets``."""
    out = []
    for name, filename, data in configs:
        path = write(filename, data)
        for fmt in ("text", "json"):
            out.append(Form(f"{turn} env --config tokens {name} {fmt}", "E2", ["env", "--config", path, "--format", fmt],
                            secrets=secrets))
            out.append(Form(f"{turn} plan --from tokens {name} {fmt}", "E2", ["plan", "--from", path, "--model", model,
                                                                             "--format", fmt], secrets=secrets,
                            error_line=True))
    return out


def build_forms(tmp: Path) -> list[Form]:
    forms: list[Form] = []
    add = forms.append

    def write(name: str, data: bytes | str) -> str:
        path = tmp / name
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8", "surrogatepass"))
        return str(path)

    # ---------------------------------------------------------------- E1: every output
    for key, seq in ESCAPES.items():
        log = f"{seq}\n{TB}{ERROR} {seq}\nValueError: {seq}bad{seq}\n"
        path = write(f"e1-{key}.log", log)
        add(Form(f"diagnose text {key}", "E1", ["diagnose", path]))
        add(Form(f"diagnose json {key}", "E1", ["diagnose", path, "--format", "json", "--all"]))
        add(Form(f"diagnose --all {key}", "E1", ["diagnose", path, "--all"]))
        add(Form(f"diagnose stdin {key}", "E1", ["diagnose", "-"], stdin=log.encode("utf-8", "surrogatepass")))
        name = seq.replace("\x00", "").replace("/", "")
        if key != "surrogate":
            add(Form(f"diagnose missing file named {key}", "E1", ["diagnose", str(tmp / f"no{name}.log")],
                     codes=(2,), error_line=True))
            add(Form(f"show unknown {key}", "E1", ["show", f"KB{name}"], codes=(2,), error_line=True))
            add(Form(f"plan --model {key}", "E1", ["plan", "--model", f"qwen{name}"], codes=(2,), error_line=True))
            add(Form(f"plan --config missing {key}", "E1", ["plan", "--config", str(tmp / f"c{name}.json")],
                     codes=(2,), error_line=True))
            add(Form(f"env --config missing {key}", "E1", ["env", "--config", str(tmp / f"c{name}.json")],
                     codes=(2,), error_line=True))
            add(Form(f"diagnose --format {key}", "E1", ["diagnose", "-", "--format", f"x{name}"], codes=(2,),
                     error_line=True))
            # "4" with trailing VT/FF or U+2028/2029 is 4: int() and float() strip Unicode whitespace, as for " 4"
            spaces = name.isspace()
            add(Form(f"plan --batch {key}", "E1", ["plan", "--model", "qwen2.5-0.5b", "--batch", f"4{name}"],
                     codes=(0, 1) if spaces else (2,), error_line=True))
            add(Form(f"plan --gpu-gib {key}", "E1", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", f"1{name}"],
                     codes=(0, 1) if spaces else (2,), error_line=True))
            add(Form(f"plan --device-map key {key}", "E1", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8",
                     "--device-map", json.dumps({f"model.x{seq}": 0})], codes=(0, 1, 2), error_line=True))
            add(Form(f"unknown command {key}", "E1", [f"x{name}"], codes=(2,), error_line=True))
            env_value = name
            add(Form(f"env CUDA_VISIBLE_DEVICES {key}", "E1", ["env"], env={"CUDA_VISIBLE_DEVICES": f"0,{env_value}"}))
            add(Form(f"env json ACCELERATE_ {key}", "E1", ["env", "--format", "json"],
                     env={"ACCELERATE_MIXED_PRECISION": env_value, "MASTER_ADDR": env_value, "RANK": f"0{env_value}"}))
            add(Form(f"env COLUMNS {key}", "E1", ["diagnose", path], env={"COLUMNS": env_value}))
        cfg = write(f"e1-cfg-{key}.json", json.dumps({"per_device_train_batch_size": seq, "optim": seq, seq: seq,
                                                      "bf16": seq}, ensure_ascii=False))
        add(Form(f"env --config values {key}", "E1", ["env", "--config", cfg], error_line=True))
        add(Form(f"env --config json {key}", "E1", ["env", "--config", cfg, "--format", "json"], error_line=True))
        add(Form(f"plan --from values {key}", "E1", ["plan", "--from", cfg, "--model", "qwen2.5-0.5b"],
                 error_line=True))
        model = write(f"e1-model-{key}.json", json.dumps({"model_type": f"llama{seq}", "hidden_size": 64,
                                                          "num_hidden_layers": 2, "num_attention_heads": 4,
                                                          "intermediate_size": 128, "vocab_size": 1000,
                                                          "torch_dtype": seq, "architectures": [seq]},
                                                         ensure_ascii=False))
        add(Form(f"plan --config text {key}", "E1", ["plan", "--config", model], error_line=True))
        add(Form(f"plan --config json {key}", "E1", ["plan", "--config", model, "--format", "json"], error_line=True))
        bad = write(f"e1-badjson-{key}.json", "{" + seq + "\n")
        add(Form(f"plan --config bad json {key}", "E1", ["plan", "--config", bad], codes=(2,), error_line=True))
        yaml = write(f"e1-yaml-{key}.yaml", f"optim: {seq}\nper_device_train_batch_size: '{seq}'\n")
        add(Form(f"env --config yaml {key}", "E1", ["env", "--config", yaml], error_line=True))
    # raw 8-bit C1 as a Latin-1 byte, and in a file name that is not UTF-8
    for byte in (b"\x9b", b"\x9d", b"\x90", b"\x85", b"\x9c"):
        name = f"raw{byte.hex()}"
        data = byte + b"31mX\n" + TB.encode() + ERROR.encode() + b" " + byte + b"2J\nValueError: caf\xe9 " + byte + b"0;t\x07\n"
        path = write(f"{name}.log", data)
        add(Form(f"diagnose latin-1 {name}", "E1", ["diagnose", path]))
        add(Form(f"diagnose latin-1 json {name}", "E1", ["diagnose", path, "--format", "json"]))
        add(Form(f"file name not UTF-8 {name}", "E1",
                 ["diagnose", os.fsdecode(bytes(tmp / "bad") + byte + b"\xff.log")], codes=(2,), error_line=True))
    add(Form("show with a surrogate argument", "E1", ["show", os.fsdecode(b"KB\xff\x1b[2J")], codes=(2,), error_line=True))
    add(Form("plan --model surrogate", "E1", ["plan", "--model", os.fsdecode(b"qwen\xff")], codes=(2,), error_line=True))
    for fmt in ("text", "json"):
        add(Form(f"env {fmt} CUDA_VISIBLE_DEVICES not UTF-8", "E1", ["env", "--format", fmt],
                 env={"CUDA_VISIBLE_DEVICES": os.fsdecode(b"0,\xff\x9b2J"), "ACCELERATE_X": os.fsdecode(b"\x9d0;t\x9c")}))
        add(Form(f"diagnose --env {fmt} CUDA_VISIBLE_DEVICES not UTF-8", "E1", ["diagnose", "--env", "--format", fmt,
                 str(tmp / "e1-osc52-bel.log")], env={"CUDA_VISIBLE_DEVICES": os.fsdecode(b"0,\xff\x9b2J")}))

    # ---------------------------------------------------------------- N1: NVML failures
    for mode in ("unicode", "bytes", "wrong-types", "huge", "negative", "nan", "unprintable-error", "error-escapes",
                 "error-non-str", "init-fails", "init-unprintable", "init-base", "import-error", "shutdown-fails",
                 "names-escapes", "count-float", "count-nan", "many", "mig-huge", "mig-wrong", "huge-name",
                 "many-procs"):
        for args in (["env"], ["env", "--format", "json"], ["diagnose", "--env", write("n1.log", TB + ERROR + "\n")],
                     ["diagnose", "--env", "--format", "json", str(tmp / "n1.log")]):
            # what NVML gave in a shape kb cannot trust is said ("could not read"), not shown as "no GPU"
            shows = {"init-fails": "NVML could not start", "init-unprintable": "NVML could not start",
                     "init-base": "NVML could not start", "import-error": "could not be imported",
                     "many-procs": "the first 1024 shown"}.get(mode, "could not read" if mode in (
                         "unicode", "wrong-types", "huge", "negative", "nan", "unprintable-error", "error-non-str",
                         "count-float", "count-nan", "mig-huge", "mig-wrong") else "") if args[0] == "env" else ""
            add(Form(f"nvml {mode}: {' '.join(args[:3])}", "N1", args, env={"FAKE_NVML": mode}, codes=(0, 1),
                     timeout=60, shows=shows))

    # ---------------------------------------------------------------- R1/R2: closed streams, SIGPIPE
    small = write("r1.log", TB + ERROR + "\n")
    cfg = write("r1-model.json", json.dumps({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2,
                                             "num_attention_heads": 4, "intermediate_size": 128, "vocab_size": 1000}))
    commands = [["diagnose", small], ["diagnose", small, "--format", "json"], ["diagnose", "--env", small],
                ["env"], ["env", "--format", "json"], ["plan", "--model", "qwen2.5-0.5b"],
                ["plan", "--config", cfg, "--format", "json"], ["plan", "--list-models"],
                ["plan", "--model", "qwen2.5-0.5b", "--fit", "--gpu-gib", "8"], ["list"], ["list", "--families"],
                ["list", "--format", "json"], ["show", "KB0001"], ["explain", "KB0001"], ["show", "KB0001", "--format", "json"],
                ["--version"], ["--help"], ["diagnose", "--help"], ["plan", "--help"], ["check"], []]
    for args in commands:
        add(Form(f"closed stdout: kb {' '.join(args)}", "R1", args, close="out", codes=(2,), error_line=True,
                 says="cannot write the output"))
        add(Form(f"full stdout: kb {' '.join(args)}", "R1", args, codes=(2,), error_line=True,
                 says="cannot write the output", shell=f"@KB@ {' '.join(repr(a) for a in args)} >/dev/full; echo $?"))
    add(Form("closed stdin: diagnose -", "R2", ["diagnose", "-"], close="in", codes=(2,), error_line=True,
             says="standard input is closed"))
    add(Form("closed stdin: diagnose (default)", "R2", ["diagnose"], close="in", codes=(2,), error_line=True,
             says="standard input is closed"))
    add(Form("closed stdin: diagnose --env", "R2", ["diagnose", "--env"], close="in", codes=(2,), error_line=True,
             says="standard input is closed"))
    add(Form("closed stdin: diagnose json", "R2", ["diagnose", "--format", "json"], close="in", codes=(2,),
             error_line=True, says="standard input is closed"))
    add(Form("closed stdin: env", "R2", ["env"], close="in", codes=(0,)))
    add(Form("closed stdin: plan", "R2", ["plan", "--model", "qwen2.5-0.5b"], close="in", codes=(0,)))
    big = write("big.log", (TB + ERROR + "\n") * 20000)
    for args in (["diagnose", big, "--all"], ["diagnose", big, "--format", "json", "--all"], ["list"],
                 ["list", "--format", "json"], ["show", "KB0001"], ["plan", "--list-models"], ["env"],
                 ["plan", "--model", "qwen2.5-0.5b", "--fit", "--gpu-gib", "8"], ["--help"]):
        quoted = " ".join(f"'{a}'" for a in args)
        add(Form(f"SIGPIPE: kb {' '.join(args)} | head -1", "R1", args, codes=(0,),
                 shell=f"@KB@ {quoted} 2>/tmp/kb-hostile-pipe-$$ | head -c 1 >/dev/null; rc=${{PIPESTATUS[0]}}; "
                       f"cat /tmp/kb-hostile-pipe-$$ >&2; rm -f /tmp/kb-hostile-pipe-$$; echo $rc"))

    # ---------------------------------------------------------------- R3: line ends, NUL
    body = TB + ERROR + "\n"
    for name, data in (("cr-only", body.replace("\n", "\r")), ("crlf", body.replace("\n", "\r\n")),
                       ("mixed", "noise\r\n" + TB.replace("\n", "\r") + ERROR + "\n"),
                       ("lf-cr-lf", "a\n\rb\r\n" + body), ("cr-only-no-end", body.replace("\n", "\r").rstrip("\r")),
                       ("cr-cr-lf", body.replace("\n", "\r\r\n")), ("nul-inside", body.replace(" ", "\x00 ", 3)),
                       ("nul-only", "\x00" * 5000), ("nul-utf16", body.encode("utf-16-le").decode("latin-1")),
                       ("ff-vt-lines", body.replace("\n", "\x0c\n")), ("ls-ps-lines", body.replace("\n", "\u2028")),
                       ("nel-lines", body.replace("\n", "\x85")), ("lone-cr-end", body + "\r"),
                       ("cr-progress", "10%\r20%\r30%\r" + body)):
        raw = data.encode("utf-8") if name not in ("nul-utf16",) else data.encode("latin-1")
        path = write(f"r3-{name}.log", raw)
        add(Form(f"line ends {name}", "R3", ["diagnose", path], error_line=True))
        add(Form(f"line ends {name} stdin json", "R3", ["diagnose", "-", "--format", "json"], stdin=raw,
                 error_line=True))
    for name in ("cr-only", "crlf", "mixed"):
        add(Form(f"line ends {name} answered", "R3", ["diagnose", str(tmp / f"r3-{name}.log")], codes=(0,)))

    # ---------------------------------------------------------------- C1: encodings
    text = TB + ERROR + "\n"
    encodings = {
        "utf-16-bom": text.encode("utf-16"), "utf-16-le": text.encode("utf-16-le"), "utf-16-be": text.encode("utf-16-be"),
        "utf-32-bom": text.encode("utf-32"), "utf-32-le": text.encode("utf-32-le"), "utf-32-be": text.encode("utf-32-be"),
        "utf-8-bom": b"\xef\xbb\xbf" + text.encode(), "latin-1": (text + "caf\xe9 na\xefve\n").encode("latin-1"),
        "cp1252": (text + "\u201cquoted\u201d \u20ac\n").encode("cp1252"), "invalid-utf8": text.encode() + b"\xff\xfe\xfd\n",
        "overlong": text.encode() + b"\xc0\xaf \xe0\x80\xaf \xf0\x80\x80\xaf\n",
        "surrogates": text.encode() + b"\xed\xa0\x80\xed\xbf\xbf\n", "cut-char-end": text.encode() + "é中".encode()[:-1],
        "cut-4byte-end": text.encode() + "😀".encode()[:2], "utf-7": text.encode("utf-7"),
        "shift-jis": (text + "エラー\n").encode("shift_jis"), "gb18030": (text + "错误\n").encode("gb18030"),
        "ebcdic": text.encode("cp500"), "binary": bytes(range(256)) * 40, "gzip": b"\x1f\x8b\x08\x00" + bytes(500),
        "utf-16-odd-length": text.encode("utf-16-le") + b"\x00\xd8\x41",
        "utf-16-lone-surrogate": "\ud800".encode("utf-16-le", "surrogatepass") + text.encode("utf-16-le"),
        "long-multibyte-line": ("中" * 40000 + "\n").encode() + text.encode(),
        "long-4byte-line": ("😀" * 30000 + "\n").encode() + text.encode(),
        "long-line-latin1": b"\xe9" * 100_000 + b"\n" + text.encode(),
        "only-bom": b"\xef\xbb\xbf", "only-utf16-bom": b"\xff\xfe", "whitespace-utf16": " \n".encode("utf-16"),
    }
    for name, data in encodings.items():
        path = write(f"c1-{name}.log", data)
        add(Form(f"encoding {name}", "C1", ["diagnose", path], error_line=True))
        add(Form(f"encoding {name} stdin json", "C1", ["diagnose", "-", "--format", "json"], stdin=data,
                 error_line=True))
    for name in ("utf-16-bom", "utf-16-le", "utf-32-bom", "utf-32-le", "utf-32-be"):
        add(Form(f"encoding {name} named", "C1", ["diagnose", str(tmp / f"c1-{name}.log")], codes=(2,),
                 error_line=True, says="UTF-" + name[4:6]))
    for name, data in (("utf-16", '{"optim": "adamw"}'.encode("utf-16")), ("latin-1", '{"optim": "caf\xe9"}'.encode("latin-1")),
                       ("invalid", b'{"optim": "\xff\xfe"}'), ("utf-32", '{"optim": "x"}'.encode("utf-32"))):
        path = write(f"c1-cfg-{name}.json", data)
        add(Form(f"config encoding {name}: env", "C1", ["env", "--config", path], codes=(2,), error_line=True))
        add(Form(f"config encoding {name}: plan --from", "C1", ["plan", "--from", path, "--model", "qwen2.5-0.5b"],
                 codes=(2,), error_line=True))
        add(Form(f"config encoding {name}: plan --config", "C1", ["plan", "--config", path], codes=(2,),
                 error_line=True))

    # ---------------------------------------------------------------- L1: huge integers
    huge = "9" * 5000
    for value in (huge, "-" + huge, "+" + huge, "0" * 5000 + "1", "1e999", "1_000", "٣", "0x10", " 5", "5 ", "-0",
                  "99999999999999999999", "1" + "0" * 30):
        short = value if len(value) < 12 else value[:6] + "..."
        for args in (["diagnose", small, "--limit", value], ["diagnose", small, f"--limit={value}"],
                     ["diagnose", small, "--width", value], ["env", "--nproc", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--batch", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--seq", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--lora-r", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--gpus", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--context-gib", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--num-generations", value, "--trainer", "grpo"],
                     *([["reproduce", "KB0001", "--timeout", value]] if len(value) > 30 else [])):
            add(Form(f"huge {short} {' '.join(args[:1] + [a for a in args if a.startswith('--')])}", "L1", args,
                     codes=(0, 1, 2), error_line=True))
        for var in ("CUDA_VISIBLE_DEVICES", "COLUMNS", "LINES", "KB_WIDTH", "RANK", "WORLD_SIZE", "LOCAL_RANK",
                    "LOCAL_WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "MASTER_PORT", "KB_CACHE_MAX", "PYTORCH_CUDA_ALLOC_CONF"):
            for args in (["env"], ["env", "--format", "json"], ["diagnose", small], ["diagnose", "--env", small]):
                add(Form(f"huge {short} {var}: {' '.join(args[:2])}", "L1", args, env={var: value}, codes=(0, 1)))
    for var in sorted({v for v in os.environ if v.startswith("KB_")} | {"KB_KNOWLEDGE_DIR", "KB_CACHE_DIR"}):
        add(Form(f"huge {var}", "L1", ["diagnose", small], env={var: huge}, codes=(0, 1, 2), error_line=True))

    # ---------------------------------------------------------------- K1-K3: kb plan input
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}
    values = {"huge": 10**400, "huge-float": 1e308, "neg": -5, "zero": 0, "nan": "NaN", "inf": "Infinity",
              "ninf": "-Infinity", "true": True, "false": False, "null": None, "str": "4096", "str-bad": "big",
              "float": 4096.5, "list": [1], "dict": {"a": 1}, "tiny": 1e-300, "negzero": -0.0, "exp": 4e3}
    for fieldname in ("hidden_size", "num_hidden_layers", "num_attention_heads", "num_key_value_heads",
                      "intermediate_size", "vocab_size", "head_dim", "tie_word_embeddings", "torch_dtype",
                      "max_position_embeddings", "num_experts", "num_local_experts", "num_experts_per_tok",
                      "moe_intermediate_size", "quantization_config", "text_config", "sliding_window", "rope_scaling"):
        for vname, value in values.items():
            doc = dict(base)
            doc[fieldname] = value
            encoded = json_with_bare_floats(doc)
            path = write(f"k1-{fieldname}-{vname}.json", encoded)
            add(Form(f"config {fieldname}={vname}", "K1", ["plan", "--config", path, "--gpu-gib", "24"],
                     error_line=True))
    settings = {"per_device_train_batch_size": 2, "gradient_accumulation_steps": 4, "max_seq_length": 1024,
                "lora_r": 16, "lora_alpha": 32, "lora_dropout": 0.05, "gradient_checkpointing": True, "optim": "adamw_torch"}
    for fieldname in (*settings, "max_length", "bf16", "fp16", "r", "num_generations", "max_completion_length",
                      "max_prompt_length", "lora_target_modules", "peft_config", "model_name_or_path", "deepspeed", "fsdp"):
        for vname, value in values.items():
            doc = dict(settings)
            doc[fieldname] = value
            encoded = json_with_bare_floats(doc)
            path = write(f"k1-from-{fieldname}-{vname}.json", encoded)
            add(Form(f"--from {fieldname}={vname}", "K1", ["plan", "--from", path, "--model", "qwen2.5-0.5b",
                                                           "--gpu-gib", "24"], error_line=True))
            if fieldname in ("num_generations", "max_completion_length", "max_prompt_length"):
                add(Form(f"--from {fieldname}={vname} grpo", "K1", ["plan", "--from", path, "--model", "qwen2.5-0.5b",
                                                                    "--trainer", "grpo"], error_line=True))
            if vname in ("huge", "nan", "inf", "true", "list", "dict", "str-bad", "neg"):
                add(Form(f"env --config {fieldname}={vname}", "K1", ["env", "--config", path], error_line=True))
    special = {
        "deep-array": "[" * 100_000 + "]" * 100_000, "deep-object": '{"a":' * 50_000 + "1" + "}" * 50_000,
        "deep-in-string": json.dumps({**base, "x": "[" * 100_000}), "empty": "", "whitespace": "  \n",
        "bom-json": "\ufeff" + json.dumps(base), "top-list": "[1,2]", "top-string": '"x"', "top-number": "1e999",
        "top-null": "null", "nan-top": "NaN", "duplicate-keys": '{"hidden_size": 1, "hidden_size": -1}',
        "long-number": '{"hidden_size": ' + "9" * 100_000 + "}", "long-float": '{"hidden_size": 1.' + "0" * 100_000 + "}",
        "yaml-bomb": "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                     "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                     "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n"
                     "g: &g [*f, *f, *f, *f, *f, *f, *f, *f, *f]\nh: &h [*g, *g, *g, *g, *g, *g, *g, *g, *g]\n",
        "yaml-tags": "!!python/object/apply:os.system ['echo pwned']\n", "yaml-deep": "a:\n" + "".join(
            "  " * i + "- \n" for i in range(1, 300)), "yaml-merge-loop": "a: &a\n  <<: *a\n",
        "yaml-huge-int": "per_device_train_batch_size: " + "9" * 5000 + "\n",
        "yaml-inf": "per_device_train_batch_size: .inf\nlora_dropout: .nan\n",
        "yaml-date": "per_device_train_batch_size: 2001-01-01\n", "yaml-binary": "optim: !!binary aGVsbG8=\n",
        "yaml-set": "optim: !!set {a, b}\n", "yaml-multi-doc": "a: 1\n---\nb: 2\n",
        "yaml-key-list": "? [a, b]\n: 1\n", "yaml-nul": "optim: \"\\0\"\n",
        "crlf-json": json.dumps(base).replace(", ", ",\r\n"), "cr-json": json.dumps(base).replace(", ", ",\r"),
        "nul-in-json": json.dumps(base)[:-1] + ', "x": "\\u0000"}', "lone-surrogate": '{"model_type": "\\ud800"}',
    }
    for name, data in special.items():
        ext = "yaml" if name.startswith("yaml") else "json"
        path = write(f"k1-{name}.{ext}", data.encode("utf-8", "surrogatepass"))
        add(Form(f"file {name}: --config", "K1", ["plan", "--config", path], codes=(0, 1, 2), error_line=True))
        add(Form(f"file {name}: --from", "K1", ["plan", "--from", path, "--model", "qwen2.5-0.5b"], codes=(0, 1, 2),
                 error_line=True))
        add(Form(f"file {name}: env --config", "K1", ["env", "--config", path], codes=(0, 1, 2), error_line=True))
        add(Form(f"file {name}: --device-map @file", "K1", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8",
                                                            "--device-map", path], codes=(0, 1, 2), error_line=True))
        add(Form(f"text {name}: --device-map", "K1", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8",
                                                      "--device-map", data.replace("\x00", "")[:50_000]],
                 codes=(0, 1, 2), error_line=True))
    os.mkfifo(tmp / "fifo.json")
    unreadable = Path(write("unreadable.json", json.dumps(base)))
    unreadable.chmod(0)
    (tmp / "dir.json").mkdir()
    (tmp / "link-loop.json").symlink_to(tmp / "link-loop.json")
    (tmp / "dangling.json").symlink_to(tmp / "nowhere.json")
    sparse = tmp / "sparse.json"
    with open(sparse, "wb") as handle:
        handle.truncate(2 * 2**30)
    for name, path in (("/dev/zero", "/dev/zero"), ("/dev/null", "/dev/null"), ("/dev/urandom", "/dev/urandom"),
                       ("fifo", str(tmp / "fifo.json")), ("unreadable", str(unreadable)), ("directory", str(tmp / "dir.json")),
                       ("symlink loop", str(tmp / "link-loop.json")), ("dangling link", str(tmp / "dangling.json")),
                       ("sparse 2 GiB", str(sparse)), ("empty path", ""), ("proc self mem", "/proc/self/mem"),
                       ("/dev/stdin", "/dev/stdin"), ("long name", "x" * 5000), ("a folder without config", str(tmp))):
        for args in (["plan", "--config", path], ["plan", "--from", path, "--model", "qwen2.5-0.5b"],
                     ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8", "--device-map", path],
                     ["env", "--config", path], ["diagnose", path]):
            if (name == "unreadable" and os.geteuid() == 0) or (name == "fifo" and args[0] == "diagnose"):
                continue  # root reads any file; diagnose reads a pipe (`kb diagnose <(cmd)`) until it ends
            lenient = (name == "/dev/stdin" and args[0] == "diagnose") or (name == "empty path" and "--device-map" in args)
            add(Form(f"path {name}: {' '.join(args[:2])}", "K2", args, codes=(0, 1, 2) if lenient else (2,),
                     error_line=True, timeout=30))
    # device maps
    layers = {f"model.layers.{i}": i % 2 for i in range(24)}
    maps = {
        "20k entries": {f"model.layers.{i}.mlp.{j}": i % 2 for i in range(24) for j in range(834)},
        "empty": {}, "all to 99": {"": 99}, "vanish": {"": -1}, "bool gpu": {"": True}, "float gpu": {"": 0.5},
        "str gpu": {"": "cuda:0"}, "cpu": {"": "cpu"}, "disk": {"": "disk"}, "meta": {"": "meta"},
        "huge gpu": {"": 10**400}, "nan gpu": {"": "NaN"}, "null gpu": {"": None}, "list gpu": {"": [0]},
        "negative zero": {"": -0.0}, "unknown module": {"vision_tower": 0}, "layers beyond": {"model.layers.999": 1},
        "huge layer index": {f"model.layers.{'9' * 5000}": 1}, "layers": layers, "cuda prefix": {"": "cuda:1"},
        "gpu 1 of 1": {"": 1}, "mixed": {**layers, "": 0},
    }
    for name, mapping in maps.items():
        text = json.dumps(mapping).replace('"NaN"', "NaN")
        if len(text) > 100_000:  # past what one argument may hold (MAX_ARG_STRLEN): the map as a file
            text = write("k2-device-map.json", text)
        gpus = ["--gpu-gib", "8", "8"] if name != "gpu 1 of 1" else ["--gpu-gib", "8"]
        add(Form(f"device map {name}", "K2" if name == "20k entries" else "K3",
                 ["plan", "--model", "qwen2.5-0.5b", *gpus, "--device-map", text], error_line=True, timeout=20))
    # Accepted on purpose, so not here: "1e-320" GiB (a true "does not fit"), "８" (float() reads Unicode digits),
    # "1e3" for a whole number (1000), a context of "1e-400" (0.0, allowed).
    flags = {"--gpu-gib": ["inf", "nan", "-1", "0", "-0", "1e309", "0x10", "", " ", "8,8"],
             "--lora-dropout": ["-0.1", "1", "nan", "inf"], "--lora-alpha": ["-1", "0", "nan", "1e400"],
             "--context-gib": ["-1", "nan", "inf"], "--lora-r": ["-1", "0.5", "nan", "true"],
             "--batch": ["0", "-1", "1.5", "inf", "nan", ""], "--seq": ["0", "1e100", "-5"],
             "--grad-accum": ["0", "1e30"], "--gpus": ["0", "-1", "65", "1.0"], "--prompt-len": ["0", "1e30"],
             "--completion-len": ["-1", "nan"], "--num-generations": ["0", "nan"]}
    for flag, bad_values in flags.items():
        for value in bad_values:
            add(Form(f"flag {flag} {value!r}", "K3", ["plan", "--model", "qwen2.5-0.5b", flag, value,
                                                      *(["--gpu-gib", "8"] if flag != "--gpu-gib" else [])],
                     codes=(2,), error_line=True))
    add(Form("many --gpu-gib", "K2", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", *["8"] * 5000], codes=(2,),
             error_line=True))
    add(Form("plan 10M layers", "K2", ["plan", "--config", write("k2-layers.json", json.dumps({**base,
             "num_hidden_layers": 10_000_000}))], codes=(2,), error_line=True))
    add(Form("plan --fit huge model", "K2", ["plan", "--config", write("k2-fit.json", json.dumps({**base,
             "num_hidden_layers": 2048, "hidden_size": 262144, "vocab_size": 4_000_000, "intermediate_size": 1048576,
             "num_attention_heads": 65536, "num_key_value_heads": 65536})), "--fit", "--gpu-gib", "4096"],
             codes=(0, 1, 2), error_line=True, timeout=30))
    add(Form("plan --fit max bounds", "K2", ["plan", "--model", "qwen2.5-0.5b", "--fit", "--gpu-gib", "4096",
                                             "--gpus", "64", "--strategy", "zero3"], codes=(0, 1, 2), error_line=True,
             timeout=30))
    add(Form("plan max batch x seq", "K2", ["plan", "--model", "qwen2.5-0.5b", "--batch", "1000000", "--seq",
                                            "100000000", "--gpu-gib", "8"], codes=(0, 1, 2), error_line=True, timeout=30))
    import importlib  # each red team's turn: benchmarks/hostile_io_tNN.py's turnNN_forms (benchmarks/ is on sys.path)

    for turn in TURNS:
        forms.extend(getattr(importlib.import_module(f"hostile_io_t{turn}"), f"turn{turn}_forms")(tmp, write))
    return forms


TURNS = (37, 38, 39, 40, 41, 42)  # the red teams' turns whose forms live in benchmarks/hostile_io_tNN.py


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="run only forms whose class or name holds this")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--failures", action="store_true", help="print only the forms that fail")
    parser.add_argument("--repo", type=Path, default=REPO, help="run the kb of this checkout (default: this one)")
    ns = parser.parse_args()
    TARGET[0] = ns.repo.resolve()
    with tempfile.TemporaryDirectory(prefix="kb-hostile-") as name:
        tmp = Path(name)
        forms = [f for f in build_forms(tmp) if ns.only in f.kind or ns.only in f.name]
        by_kind: dict[str, list[int]] = {}
        failed = 0
        with ThreadPoolExecutor(ns.jobs) as pool:
            for form, (label, problems, took) in zip(forms, pool.map(run_form, forms)):
                counts = by_kind.setdefault(form.kind, [0, 0])
                counts[0] += 1
                if problems:
                    counts[1] += 1
                    failed += 1
                if problems or not ns.failures:
                    shown = label.encode("unicode_escape").decode()[:110]
                    print(f"{'FAIL' if problems else 'ok  '} {form.kind:3} {took:5.1f}s {shown}"
                          + (f": {'; '.join(problems)}" if problems else ""), flush=True)
        for path in tmp.rglob("*"):  # the unreadable file, so that the folder can be removed
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IRUSR | stat.S_IWUSR | stat.S_IXUSR)
    print("\nclass  forms  failing")
    for kind, (total, bad) in sorted(by_kind.items()):
        print(f"{kind:5} {total:6} {bad:8}")
    print(f"all   {sum(t for t, _ in by_kind.values()):6} {failed:8}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
