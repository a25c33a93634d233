"""How `kb diagnose` copes with hostile input: seconds per MB and peak memory.

Each *class* is a line shape built to make one family of the parser's patterns backtrack (a trigger
word, then a long run of what the pattern keeps trying: spaces, ``a.``, word characters). For each
class and line length a file is generated under /tmp, `python -m kb diagnose FILE --format json` runs on
it in a child process (killed after ``--timeout`` seconds), and the wall time, seconds per MB of input
and the child's peak RSS (ru_maxrss from wait4) are printed. A further class opens a traceback on
each of ``--ranks`` ranks (memory: per-rank state), and one holds many error lines that each match a
signature (the cost of scoring).

    python benchmarks/diagnose_hostile.py                        # 1 MB per class of 64 KB lines
    python benchmarks/diagnose_hostile.py --line-kb 8 16 32 --lines 1 --timeout 60   # old code: growth
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

# name -> (what it attacks, a function from a length in characters to one line of about that length)
LINE_CLASSES: dict[str, tuple[str, Callable[[int], str]]] = {
    "timestamp-spaces": ("log-prefix timestamp, spaces, `Error`",
                         lambda n: "2025-04-21 10:00:01 " + " " * n + "Error"),
    "error-dots": ("`Error ` then `a.` repeated (dotted exception names)", lambda n: "Error " + "a." * (n // 2)),
    "dots-error": ("`a.` repeated then `Error` (dotted names, no colon)", lambda n: "a." * (n // 2) + "Error"),
    "ipython-header-dots": ("`a.` repeated then an IPython header",
                            lambda n: "a." * (n // 2) + "Error  Traceback (most recent call last)"),
    "exception-spaces": ("`RuntimeError: x`, spaces, `y` (CUDA advice split)",
                         lambda n: "RuntimeError: x" + " " * n + "y"),
    "assertion-word": ("a CUDA assertion, then one long word (kernel source name)",
                       lambda n: "Assertion `x` failed " + "a" * n),
    "assertion-dots": ("a CUDA assertion, then `a.` repeated", lambda n: "Assertion `x` failed " + "a." * (n // 2)),
    "frame-spaces": ('`File "a", line 1, in f`, spaces, `x` (frame function)',
                     lambda n: 'File "a", line 1, in f' + " " * n + "x"),
    "repr-repeated": ("` xError('a` repeated (repr form)", lambda n: " xError('a" * (n // 10)),
    "known-message-spaces": ("a known message without type, spaces, a literal",
                             lambda n: "CUDA out of memory." + " " * n + "Tried to allocate"),
    # turn 37: redaction's new rules and views (issue 26), each construct repeated after an error
    "tool-password-flags": ("`Error: ` then `zip ` repeated (a tool's password flag looked for after each)",
                            lambda n: "RuntimeError: " + "zip " * (n // 4)),
    "openssl-pass": ("`Error: ` then `-pass pass:` repeated", lambda n: "RuntimeError: " + "-pass pass:" * (n // 11)),
    "xml-elements": ("`Error: ` then `<password>` repeated (an element never closed)",
                     lambda n: "RuntimeError: " + "<password>" * (n // 10)),
    "name-value-pairs": ('`Error: ` then `"HF_TOKEN", ` repeated', lambda n: 'RuntimeError: ' + '"HF_TOKEN", ' * (n // 12)),
    "carriage-returns": ("`Error: ` then `ab12\\r` repeated (lone CRs: wraps)", lambda n: "RuntimeError: " + "ab12\r" * (n // 5)),
    "zero-widths": ("`Error: ` then `hf_a` and a zero width repeated", lambda n: "RuntimeError: " + "hf_a\u200b" * (n // 5)),
}


def huge_line(path: Path, size: int) -> None:
    """One line of ``size`` bytes: `Error ` and then `a.` repeated (the reader keeps its first 64 KiB)."""
    with open(path, "wb") as out:
        out.write(b"Error ")
        out.write(b"a." * ((size - 6) // 2))
        out.write(b"\n")


def ranks_file(path: Path, ranks: int) -> None:
    """Every rank opens a traceback with one frame and never prints its exception line."""
    with open(path, "w") as out:
        for r in range(ranks):
            out.write(f"[rank{r}]: Traceback (most recent call last):\n"
                      f'[rank{r}]:   File "/w/train.py", line {r % 997 + 1}, in <module>\n')


def many_errors_file(path: Path, size: int) -> None:
    """Error lines that each match a signature, each with 1,500 characters of trailing text."""
    line = ("RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
            "14.74 GiB of which 1.2 GiB is free. " + "x " * 750 + "\n")
    with open(path, "w") as out:
        for _ in range(size // len(line) + 1):
            out.write(line)


def all_literals_file(path: Path, lines: int) -> None:
    """Distinct 4,000-character error lines, each holding every signature's literal: every signature's
    regex runs on every message (the cost of scoring, not of parsing)."""
    sys.path.insert(0, str(REPO))
    from kb.knowledge.index import load_index

    literals = " ".join(load_index().literals())
    with open(path, "w") as out:
        for i in range(lines):
            word = chr(97 + i % 26) + chr(97 + i // 26 % 26) + chr(97 + i // 676 % 26)  # distinct, not folded
            out.write((f"RuntimeError: {word} {literals} " * 2)[:4000] + "\n")


def distinct_errors_file(path: Path, lines: int) -> None:
    """Every line a different error (no two fold together): the cost per error, context lines included."""
    with open(path, "w") as out:
        for i in range(lines):
            word, n = "", i
            while True:
                word += chr(97 + n % 26)
                n //= 26
                if not n:
                    break
            out.write(f"ValueError: failure in {word} step\n")


def run(file: Path, timeout: float) -> dict[str, object]:
    """Diagnose ``file`` in a child; wall seconds, peak RSS (MiB), exit code, root line, ranks_seen."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "kb", "diagnose", str(file), "--format", "json"],
                            cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    timed_out = False
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        timed_out = True
    wall = time.perf_counter() - start
    rss = 0
    try:  # the child was reaped by communicate; its usage is in RUSAGE_CHILDREN's maximum
        import resource

        rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024
    except (ImportError, OSError):
        pass
    result: dict[str, object] = {"seconds": wall, "timed_out": timed_out, "exit": proc.returncode,
                                 "children_peak_rss_mib": rss, "stderr": err.decode(errors="replace")[-300:]}
    try:
        doc = json.loads(out)
        root = doc.get("root_error") or {}
        result["root_line"] = root.get("line")
        result["ranks_seen"] = (doc.get("environment") or {}).get("ranks_seen")
        result["errors_seen"] = doc.get("errors_seen")
    except ValueError:
        pass
    return result


def run_isolated(file: Path, timeout: float) -> dict[str, object]:
    """Run in a fresh grandchild so RUSAGE_CHILDREN's peak is this run's alone."""
    code = ("import json, sys; sys.path.insert(0, %r); from diagnose_hostile import run; from pathlib import Path; "
            "print(json.dumps(run(Path(%r), %r)))" % (str(Path(__file__).parent), str(file), timeout))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "PYTHONPATH": os.environ.get("PYTHONPATH", str(REPO))})
    return json.loads(out.stdout.strip().splitlines()[-1])


STARTUP = [0.0]  # wall seconds of `kb diagnose` on a one-line file: subtracted for the net figure


def report(name: str, size: int, r: dict[str, object]) -> str:
    mb = size / 1e6
    secs = float(r["seconds"])  # type: ignore[arg-type]
    net = max(0.0, secs - STARTUP[0]) / mb
    per_mb = f">{secs / mb:.1f}" if r["timed_out"] else f"{secs / mb:.2f} ({net:.2f} net)"
    extra = "".join(f", {k} {r[k]}" for k in ("root_line", "ranks_seen", "errors_seen") if r.get(k) is not None)
    status = "TIMEOUT" if r["timed_out"] else f"exit {r['exit']}"
    return (f"{name:24s} {mb:8.3f} MB  {secs:7.2f} s  {per_mb:>18s} s/MB  peak {r['children_peak_rss_mib']:5d} MiB"
            f"  {status}{extra}")


# Secrets in the forms kb once printed; each scenario is (name, input text, secrets that must not show).
HF = "hf_" + "AbCdEfGhIjKlMnOpQrStUvWx12"
WANDB = "0123456789abcdef0123456789abcdef01234567"
AWS = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
PAT = "github_pat_11ABCDEFG0ZYXWVUTSRQ_abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ9876543210zy"
BEARER = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"
URL_PASSWORD = "S3cretPassw0rd"
EMAIL = "alice.smith@mail-corp.test"
SECRETS = {"aws-secret": AWS, "github_pat": PAT, "bearer": BEARER, "url-password": URL_PASSWORD, "email": EMAIL,
           "hf-token": HF, "wandb-key": WANDB}
DTYPE = "RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float"
SCENARIOS = {
    "message": f"{DTYPE}; aws {AWS}; pat {PAT}; Authorization: Bearer {BEARER}; "
               f"url https://alice:{URL_PASSWORD}@hub.example.com/m; mail {EMAIL}; {HF}\n",
    "user-frame": ("Traceback (most recent call last):\n"
                   f'  File "/w/train.py", line 12, in <module>\n    login("{HF}", "{AWS}", "{EMAIL}", "{PAT}")\n'
                   '  File "/usr/lib/python3.11/site-packages/torch/nn/functional.py", line 9, in linear\n'
                   "    return torch.matmul(a, b)\n" + DTYPE + "\n"),
    "evidence-hint": (f"numpy {HF} {AWS} https://bob:{URL_PASSWORD}@h.example.com {EMAIL}\n"
                      "Traceback (most recent call last):\n"
                      '  File "/w/model.py", line 287, in forward\n'
                      "    embedding = torch.matmul(label, self.label_weight)\n" + DTYPE + "\n"),
    "json-cut-960": "ValueError: " + "x" * 961 + " " + WANDB + " tail\n" + DTYPE + "\n",
    "root-headline-120": "ValueError: " + "y" * 94 + " " + HF + " end\n" + DTYPE + "\n",
    "long-code-line": ("Traceback (most recent call last):\n"
                       '  File "/w/train.py", line 12, in <module>\n    ' + "z" * 284 + f" {HF}\n" + DTYPE + "\n"),
}


def leaked(text: str) -> list[str]:
    """The secrets shown in ``text``, whole or as a piece of 10 characters or more."""
    found = []
    for name, secret in SECRETS.items():
        private = secret.removeprefix("github_pat_").removeprefix("hf_")  # the public prefix may show
        pieces = {private[i:i + 10] for i in range(0, max(1, len(private) - 9))}
        if secret in text:
            found.append(f"{name} (whole)")
        elif any(p in text for p in pieces):
            found.append(f"{name} (part)")
    return found


def secret_report(tmp: Path) -> None:
    """Run every scenario through text, --format json and --env (with an ACCELERATE_* URL); list leaks."""
    file = tmp / "secrets.log"
    env = {**os.environ, "ACCELERATE_CONFIG_URL": f"https://alice:{URL_PASSWORD}@cfg.example.com/c.yaml",
           "ACCELERATE_USE_FSDP": "false"}
    modes = {"text": [], "json": ["--format", "json"], "env-text": ["--env"], "env-json": ["--env", "--format", "json"]}
    for name, text in SCENARIOS.items():
        file.write_text(text)
        cells = []
        for mode, extra in modes.items():
            out = subprocess.run([sys.executable, "-m", "kb", "diagnose", str(file), *extra], cwd=REPO, env=env,
                                 capture_output=True, text=True)
            shown = leaked(out.stdout + out.stderr)
            cells.append(f"{mode}: {', '.join(shown) if shown else 'none'}")
        print(f"  {name:18s} " + "; ".join(cells), flush=True)
    for args in (["env"], ["env", "--format", "json"]):
        out = subprocess.run([sys.executable, "-m", "kb", *args], cwd=REPO, env=env, capture_output=True, text=True)
        shown = leaked(out.stdout + out.stderr)
        print(f"  kb {' '.join(args):16s} ACCELERATE_CONFIG_URL with a password: {', '.join(shown) or 'none'}")


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))  # /dev/zero once grew to 24 GB


def misc_run(argv: list[str], stdin: bytes | None = None, env: dict[str, str] | None = None,
             stdout: object = subprocess.PIPE, timeout: float = 60) -> str:
    """Run kb with ``argv``: exit code, seconds, whether a traceback showed, the first line of stderr."""
    start = time.perf_counter()
    try:
        proc = subprocess.run([sys.executable, "-m", "kb", *argv], cwd=REPO, input=stdin, stdout=stdout,
                              stderr=subprocess.PIPE, env={**os.environ, **(env or {})}, timeout=timeout,
                              preexec_fn=_limit_memory)
    except subprocess.TimeoutExpired:
        return f"TIMEOUT after {timeout:.0f} s"
    err = proc.stderr.decode(errors="replace")
    traceback = "Traceback" in err
    first = err.strip().splitlines()[-1][:110] if err.strip() else ""
    out = proc.stdout.decode(errors="replace") if isinstance(proc.stdout, bytes) else ""
    strict = ""
    if "--format" in argv and out:
        try:
            json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
            strict = ", stdout strict JSON"
        except ValueError as exc:
            strict = f", stdout NOT strict JSON ({str(exc)[:40]})"
    return (f"exit {proc.returncode}, {time.perf_counter() - start:.2f} s, "
            f"{'kb traceback' if traceback else 'no traceback'}{strict}; stderr: {first!r}")


def misc_report(tmp: Path) -> None:
    """env --config, output and exit codes, the signature cache: what each hostile case does."""
    t = tmp
    deep_json = t / "deep.json"
    deep_json.write_text("[" * 100_000 + "]" * 100_000)
    deep_yaml = t / "deep.yaml"
    deep_yaml.write_text("a: " + "[" * 100_000 + "]" * 100_000 + "\n")
    digits = t / "digits.json"
    digits.write_text('{"per_device_train_batch_size": ' + "9" * 100_000 + "}")
    digits_yaml = t / "digits.yaml"
    digits_yaml.write_text("per_device_train_batch_size: " + "9" * 100_000 + "\n")
    nan = t / "nan.json"
    nan.write_text('{"per_device_train_batch_size": NaN, "gradient_accumulation_steps": Infinity}')
    cases = {
        "env --config /dev/zero": ["env", "--config", "/dev/zero"],
        "env --config deep.json (100,000 levels)": ["env", "--config", str(deep_json)],
        "env --config deep.yaml (100,000 levels)": ["env", "--config", str(deep_yaml)],
        "env --config 100,000-digit number (JSON)": ["env", "--config", str(digits)],
        "env --config 100,000-digit number (YAML)": ["env", "--config", str(digits_yaml)],
        "env --config NaN --format json": ["env", "--config", str(nan), "--format", "json"],
    }
    for name, argv in cases.items():
        print(f"  {name:44s} {misc_run(argv, timeout=60)}", flush=True)
    full = open("/dev/full", "wb")  # noqa: SIM115
    print(f"  {'kb list > /dev/full':44s} {misc_run(['list'], stdout=full)}", flush=True)
    log = t / "dtype.log"
    log.write_text(DTYPE + "\n")
    print(f"  {'kb diagnose > /dev/full':44s} {misc_run(['diagnose', str(log)], stdout=full)}", flush=True)
    full.close()
    ascii_env = {"PYTHONIOENCODING": "ascii"}
    print(f"  {'PYTHONIOENCODING=ascii kb diagnose':44s} {misc_run(['diagnose', str(log)], env=ascii_env)}")
    print(f"  {'PYTHONIOENCODING=ascii kb list':44s} {misc_run(['list'], env=ascii_env)}")
    print(f"  {'PYTHONIOENCODING=ascii diagnose --format json':44s} "
          f"{misc_run(['diagnose', str(log), '--format', 'json'], env=ascii_env)}")
    for name, data in (("empty input", b""), ("whitespace-only input", b"  \n\t\n\n   \n"),
                       ("Latin-1 bytes in an ASCII error", ("RuntimeError: caf\xe9 " + DTYPE[14:] + "\n").encode("latin-1")),
                       ("mostly Latin-1 text", "\n".join(["d\xe9j\xe0 vu \xe9t\xe9"] * 20).encode("latin-1"))):
        print(f"  {'diagnose ' + name:44s} {misc_run(['diagnose', '-'], stdin=data)}", flush=True)
    cache_report(t, log)


def cache_report(t: Path, log: Path) -> None:
    """A corrupt signature cache: a flipped byte, valid marshal with bad entries, the path a directory."""
    import marshal

    cache = t / "cache"
    env = {"KB_CACHE_DIR": str(cache)}
    misc_run(["diagnose", str(log)], env=env)  # build it
    files = sorted(cache.glob("signatures-*.marshal"))
    if not files:
        print("  cache: no cache file was written")
        return
    path = files[0]
    good = path.read_bytes()

    def diagnose_text() -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kb", "diagnose", str(log)], cwd=REPO, capture_output=True,
                              env={**os.environ, **env}, text=True)

    expected = diagnose_text().stdout
    # A byte flipped inside text the answer prints (a word of its title or fix): marshal still loads it.
    import re

    words = [w.encode() for w in re.findall(r"[a-z]{9,}", expected)]
    at = next(good.find(w) + 1 for w in words if good.find(w) != -1)
    flipped = bytearray(good)
    flipped[at] ^= 0x20  # lower case to upper case
    path.write_bytes(bytes(flipped))
    out = diagnose_text()
    differs = out.stdout != expected
    again = diagnose_text().stdout != expected
    print(f"  {'cache: one byte flipped in a case text':44s} exit {out.returncode}, output "
          f"{'CHANGED (the flipped text printed)' if differs else 'as with a good cache'}; next run "
          f"{'still changed' if again else 'as with a good cache'}")
    sys.path.insert(0, str(REPO))
    from kb.knowledge.index_build import unpack
    from kb.knowledge.precompiled import checksum

    stored = unpack(good)  # (the file's layout: kb/knowledge/index.py)
    key = stored["key"] if stored is not None else None
    head = marshal.dumps({"key": key, "entries": {"cases": [[1, 2, 3]], "families": [], "meanings": {}}})
    length = len(head).to_bytes(4, "big")
    path.write_bytes(checksum(head).to_bytes(8, "big") + length + head)  # its checksum right
    runs = [misc_run(["diagnose", str(log)], env=env) for _ in range(2)]
    print(f"  {'cache: valid marshal, bad entries (2 runs)':44s} {runs[0]} | {runs[1]}")
    for f in cache.iterdir():
        f.unlink()
    path.mkdir()
    for _ in range(3):
        misc_run(["diagnose", str(log)], env=env)
    left = [f.name for f in cache.iterdir() if f.name.endswith(".tmp")]
    print(f"  {'cache: the cache path is a directory (3 runs)':44s} {len(left)} .tmp file(s) left behind")


def cpu_report(line_kb: int, lines: int, repeats: int) -> None:
    """In this process: CPU seconds per MB for each line class (best of ``repeats``), without start-up,
    and so much less disturbed than wall time by other processes on a shared machine."""
    sys.path.insert(0, str(REPO))
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.index import load_index

    knowledge = load_index()
    for name, (_what, make) in LINE_CLASSES.items():
        text = [make(line_kb * 1024 - 64)] * lines
        mb = sum(len(x) + 1 for x in text) / 1e6
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            diagnose_lines(text, knowledge)
            best = min(best, time.process_time() - start)
        print(f"  {name:24s} {line_kb} KiB x {lines}: {mb:.2f} MB, {best:.2f} CPU s, {best / mb:.2f} CPU s/MB", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--line-kb", type=int, nargs="+", default=[64], help="line lengths to try (KiB)")
    parser.add_argument("--lines", type=int, default=16, help="lines per file (16 x 64 KiB = 1 MiB)")
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--classes", nargs="*", default=None, help="only these line classes")
    parser.add_argument("--huge-mb", type=int, default=10)
    parser.add_argument("--ranks", type=int, default=1_000_000)
    parser.add_argument("--many-mb", type=int, default=4)
    parser.add_argument("--skip", nargs="*", default=[], help="skip: huge ranks many literals distinct")
    parser.add_argument("--secrets-only", action="store_true", help="only the secret scenarios")
    parser.add_argument("--misc-only", action="store_true", help="only env --config, output and cache cases")
    parser.add_argument("--cpu-only", action="store_true", help="only in-process CPU seconds per MB per line class")
    ns = parser.parse_args()
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}", flush=True)
    with tempfile.TemporaryDirectory(prefix="kb-hostile-") as tmp:
        file = Path(tmp) / "input.log"
        if ns.secrets_only:
            print("# secrets: what each output mode shows (a piece is 10 characters or more of a secret)")
            secret_report(Path(tmp))
            return 0
        if ns.cpu_only:
            print("# CPU seconds per MB, in-process (no start-up), best of 3")
            for kb in ns.line_kb:
                cpu_report(kb, ns.lines, 3)
            return 0
        if ns.misc_only:
            print("# env --config, output and exit codes, the signature cache")
            misc_report(Path(tmp))
            return 0
        file.write_text("RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n")
        STARTUP[0] = min(float(run_isolated(file, ns.timeout)["seconds"]) for _ in range(3))  # type: ignore[arg-type]
        print(f"start-up (one-line input, best of 3): {STARTUP[0]:.2f} s; 'net' = (seconds - start-up) / MB",
              flush=True)
        for name, (what, make) in LINE_CLASSES.items():
            if ns.classes is not None and name not in ns.classes:
                continue
            print(f"# {name}: {what}", flush=True)
            for kb in ns.line_kb:
                line = make(kb * 1024 - 64)
                file.write_text((line + "\n") * ns.lines)
                size = file.stat().st_size
                print("  " + report(f"{kb} KiB x {ns.lines}", size, run_isolated(file, ns.timeout)), flush=True)
        if "huge" not in ns.skip:
            print(f"# huge-line: one {ns.huge_mb} MB line: `Error ` and then `a.` repeated", flush=True)
            huge_line(file, ns.huge_mb * 10**6)
            print("  " + report("one line", file.stat().st_size, run_isolated(file, ns.timeout)), flush=True)
        if "ranks" not in ns.skip:
            print(f"# ranks: {ns.ranks:,} ranks each opening a traceback (a frame, no exception line)", flush=True)
            ranks_file(file, ns.ranks)
            print("  " + report(f"{ns.ranks} ranks", file.stat().st_size, run_isolated(file, ns.timeout)), flush=True)
        if "many" not in ns.skip:
            print("# many-errors: OOM error lines, each matching signatures, with 1,500 characters after", flush=True)
            many_errors_file(file, ns.many_mb * 10**6)
            print("  " + report("error lines", file.stat().st_size, run_isolated(file, ns.timeout)), flush=True)
        if "literals" not in ns.skip:
            print("# all-literals: 1,000 distinct 4,000-character error lines holding every signature's literal",
                  flush=True)
            all_literals_file(file, 1000)
            print("  " + report("error lines", file.stat().st_size, run_isolated(file, ns.timeout)), flush=True)
        if "distinct" not in ns.skip:
            print("# distinct-errors: 300,000 lines, every one a different error", flush=True)
            distinct_errors_file(file, 300_000)
            print("  " + report("error lines", file.stat().st_size, run_isolated(file, ns.timeout)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
