"""Real runtime tracebacks for the dev set: run each small failing program and keep what it printed.

    python benchmarks/runtime_tracebacks.py [--set runtime-39] [--only NAME ...] [--jobs 2]

Each program under benchmarks/runtime_tracebacks/ starts with a header of ``# key: value`` lines: ``family``
(the kb family the failure belongs to; ``none`` from runtime-44 on: an out-of-scope failure kb must leave unclaimed), ``case`` (a case id, where one fits), ``mode`` (how it is run:
plain, ipython, torchrun, torchrun-port, torchrun-tee, shellkill, sigint, accelerate, logprefix, nbclient,
srunlabel, pytest, pyc, distlaunch, torchrun-nnodes2), ``set`` (the fixture set it
belongs to: runtime-38 when absent, runtime-39 to runtime-44 for the programs written at turns 39 to 44), ``wave`` (the batch it was written in, each
first-scored before kb was changed for it; 1 when absent), ``expect`` (a regex the output must hold, or the
program did not fail the way it was meant to and nothing is saved) and ``note``. The libraries raise on
their own code paths (tiny models from configs with random weights, tokenizers built offline, a local
stand-in HTTP server for the Hub, whose address the kept text shows as https://huggingface.co); nothing is
patched. What the run printed (stdout and stderr together, as a
terminal shows them; a carriage-return-rewritten line keeps its last state) is written to
tests/fixtures/diagnose/SET/NAME.txt, and labels.toml lists every fixture with its label and the
versions the run used. No first score is kept here: benchmarks/runtime_tracebacks_score.py scores the set.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROGRAMS = REPO / "benchmarks" / "runtime_tracebacks"
SETS = ("runtime-38", "runtime-39", "runtime-40", "runtime-41", "runtime-42", "runtime-43", "runtime-44")
FIXTURES = REPO / "tests" / "fixtures" / "diagnose" / "runtime-38"
RUN_DIR = Path(tempfile.gettempdir()) / "runtime38"  # where the programs run: their frames name this folder
TIMEOUT = 180
# Labels changed after the first score (benchmarks/results/devset-runtime-38-first-score.txt): program -> (family, why).
# Kept here, not in the programs' headers, so that the programs still print the tracebacks kept (same line numbers).
RELABELS = {
    "td_dataloader_strings": ("shape-mismatch", "kb files 'stack expects each tensor to be equal size' under shape-mismatch "
                              "(its stack-expects-equal-size signature, triage cause 'sequences of different lengths in "
                              "one batch'); the family titles read the same way"),
    "cs_nccl_torchrun": ("multi-gpu-launch", "kb files \"Distributed package doesn't have NCCL built in\" under "
                         "multi-gpu-launch (its signature and triage: the launch asked for a backend this torch build "
                         "lacks)"),
    # runtime-39
    "ad39_merge_unload_plain": ("api-drift", "the corpus labels this very message (transformers#28515, 'LlamaForCausalLM' "
                                "object has no attribute 'merge_and_unload') api-drift, cause merge-and-unload-needs-"
                                "peftmodel, and kb answers api-drift as the corpus does"),
    # runtime-42
    "ck42_no_config_json": ("model-unsupported", "families/model-unsupported.md files 'Unrecognized model in <path>. Should "
                            "have a `model_type` key in its config.json' under its signature unrecognized-model-path and "
                            "the triage cause 'the path is not a full model folder: ... without config.json'"),
    "mg42_torchrun_group_rank": ("hang", "families/hang.md files the store's 'wait timeout after N ms, keys:' under its "
                                 "signature store-wait-timeout and the triage cause 'ranks never meet at startup ... or "
                                 "nproc_per_node/num_processes is larger than the processes actually started'"),
}
# Cases changed after runtime-39's first score (benchmarks/results/devset-runtime-39-first-score.txt): program -> (case, why).
CASE_RELABELS = {
    "ck39_cuda_checkpoint": ("", "KB0031's 'when this does not apply' names this very message (a GPU checkpoint loaded "
                             "without map_location happens on CPU and CUDA builds alike): cuda-setup's family answer, "
                             "not the case, is the one to give"),
    # runtime-42 wave 2
    "ad42b_logging_peft_other_arch": ("", "KB0029's signature excludes PeftModel.from_pretrained and load_adapter ('loading "
                                      "a saved adapter onto another model raises the same sentence: that is the adapter's "
                                      "base, not the config'): adapter-config's family answer is the one to give"),
}
PACKAGES = ("torch", "transformers", "peft", "trl", "accelerate", "datasets", "bitsandbytes", "huggingface_hub",
            "safetensors", "tokenizers", "ipython", "numpy")


def use_set(name: str) -> None:
    """Point FIXTURES and RUN_DIR at one set (runtime-39's programs run in /tmp/runtime39: their frames name it)."""
    global FIXTURES, RUN_DIR
    FIXTURES = REPO / "tests" / "fixtures" / "diagnose" / name
    RUN_DIR = Path(tempfile.gettempdir()) / name.replace("-", "")


def programs_of(name: str) -> list[Path]:
    """The programs of one set (the ``set`` header; runtime-38 when absent), helpers (``_*.py``) left out."""
    return sorted(p for p in PROGRAMS.glob("*.py")
                  if not p.name.startswith("_") and header(p).get("set", "runtime-38") == name)


def header(path: Path) -> dict[str, str]:
    """The ``# key: value`` lines at the top of a program."""
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"# (\w+): (.*)", line)
        if not m:
            break
        out[m.group(1)] = m.group(2).strip()
    return out


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def terminal_text(raw: bytes) -> str:
    """What a terminal shows: each line's last carriage-return segment, no trailing spaces."""
    text = raw.decode("utf-8", errors="replace")
    lines = [line.split("\r")[-1] if "\r" in line.rstrip("\r") else line.rstrip("\r") for line in text.split("\n")]
    return "\n".join(line.rstrip() for line in lines).strip("\n") + "\n"


def environment() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HF_", "TRANSFORMERS_", "PYTHONPATH"))}
    env.update(PYTHONPATH=str(RUN_DIR), HF_HUB_OFFLINE="1", HF_HOME=str(RUN_DIR / "hf-home"),
               TOKENIZERS_PARALLELISM="false", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    return env


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def run(name: str, mode: str) -> bytes:
    """Run one program the way its mode says; return everything it printed."""
    script = str(RUN_DIR / f"{name}.py")
    py = sys.executable
    env = environment()
    log = RUN_DIR / f"{name}.log"
    port_holder = None
    if mode == "ipython":
        cmd = [py, str(Path(__file__).resolve()), "--ipython-child", script]
    elif mode in ("torchrun", "torchrun-port", "torchrun-tee"):
        port = free_port()
        if mode == "torchrun-port":  # another job holds the port
            port_holder = socket.socket()
            port_holder.bind(("127.0.0.1", port))
            port_holder.listen()
        cmd = [py, "-m", "torch.distributed.run", "--nproc_per_node=2", f"--master_port={port}", script]
        if mode == "torchrun-tee":  # --tee 3: the agent copies each rank's stdout and stderr, lines prefixed [default<rank>]:
            cmd[3:3] = ["--tee=3"]
    elif mode == "distlaunch":  # the deprecated launcher: it passes --local-rank=N to the script
        cmd = [py, "-m", "torch.distributed.launch", "--nproc_per_node=2", f"--master_port={free_port()}", script]
    elif mode == "torchrun-nnodes2":  # the first node of a two-node launch whose second node never starts
        cmd = [py, "-m", "torch.distributed.run", "--nnodes=2", "--node_rank=0", "--nproc_per_node=2",
               "--rdzv_backend=c10d", f"--rdzv_endpoint=127.0.0.1:{free_port()}", "--rdzv_id=sft-job",
               "--rdzv_conf=join_timeout=10", script]
    elif mode == "accelerate":  # accelerate launch --multi_gpu, 2 processes (torch's elastic agent reports the failure);
        # the programs ask Accelerator(cpu=True), so the ranks meet over gloo on this GPU-less machine
        cmd = [py, "-m", "accelerate.commands.launch", "--multi_gpu", "--num_processes=2", "--num_machines=1",
               f"--main_process_port={free_port()}", "--mixed_precision=no", "--dynamo_backend=no", script]
    elif mode == "pyc":  # a notebook-like `python -c "..."`: the program's source as one string (frames read <string>)
        cmd = [py, "-c", Path(script).read_text(encoding="utf-8")]
    elif mode == "nbclient":  # the program's cells as a notebook, run by nbclient's `jupyter execute` in a real kernel
        notebook(RUN_DIR / f"{name}.py", RUN_DIR / f"{name}.ipynb")
        cmd = [str(Path(py).parent / "jupyter-execute"), f"{name}.ipynb"]
    elif mode == "pytest":  # the program's test functions collected and run by pytest (its own failure report)
        cmd = [py, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", script]
    elif mode == "shellkill":
        cmd = ["bash", "-c", f"{py} {name}.py\nstatus=$?"]  # bash stays the parent and reports the kill
    else:
        cmd = [py, script]
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=RUN_DIR, env=env, stdout=out, stderr=subprocess.STDOUT,
                                start_new_session=True)
        start = time.monotonic()
        while proc.poll() is None and time.monotonic() - start < TIMEOUT:
            time.sleep(0.2)
            if mode == "shellkill" and b"Loading checkpoint shards for merging" in log.read_bytes():
                for child in _children(proc.pid):  # the OOM killer's SIGKILL, to the python under bash
                    os.kill(child, signal.SIGKILL)
            if mode == "sigint" and time.monotonic() - start > 8:
                proc.send_signal(signal.SIGINT)  # Ctrl-C
                mode = "plain"
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    if port_holder:
        port_holder.close()
    if mode == "logprefix":  # as a log collector keeps it (kubectl logs --timestamps): every line behind a stamp
        return prefixed(log.read_bytes())
    if mode == "srunlabel":  # as `srun --label` prints one task's output: every line behind its task number
        return b"".join(b"0: " + line for line in log.read_bytes().splitlines(keepends=True))
    return log.read_bytes()


def prefixed(raw: bytes) -> bytes:
    """Every line of ``raw`` behind an RFC 3339 timestamp and the stream's name, as container log collectors write."""
    lines = raw.decode("utf-8", errors="replace").split("\n")
    stamp = time.time()
    out = []
    for i, line in enumerate(lines[:-1] if lines and lines[-1] == "" else lines):
        t = time.gmtime(stamp + i * 0.001)
        out.append(time.strftime("%Y-%m-%dT%H:%M:%S", t) + f".{(i * 1000) % 1000000:06d}Z stderr F {line}")
    return ("\n".join(out) + "\n").encode()


def notebook(script: Path, out: Path) -> None:
    """Write the program's cells (split at ``# %%``, the header left out) as a notebook."""
    import nbformat

    body = "\n".join(line for line in script.read_text(encoding="utf-8").splitlines() if not re.match(r"# \w+: ", line))
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(cell.strip("\n")) for cell in body.split("# %%\n")]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, out)


def ipython_child(script: str) -> None:
    """Run a program's cells (split at ``# %%``) in IPython's shell: its own traceback formatter prints."""
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.colors = "nocolor"
    source = Path(script).read_text(encoding="utf-8")
    body = "\n".join(line for line in source.splitlines() if not re.match(r"# \w+: ", line))
    for cell in body.split("# %%\n"):
        result = shell.run_cell(cell.strip("\n"), store_history=True)
        if not result.success:
            break


def versions() -> dict[str, str]:
    out = {"python": sys.version.split()[0]}
    for p in PACKAGES:
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            out[p] = "not installed"
    return out


def toml_str(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--set", choices=SETS, default="runtime-38", help="the fixture set to write (default runtime-38)")
    parser.add_argument("--only", nargs="*", help="program names to run (default: all)")
    parser.add_argument("--wave", type=int, help="run only the programs of this wave")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--labels-only", action="store_true", help="rewrite labels.toml from the headers, run nothing")
    parser.add_argument("--ipython-child", help=argparse.SUPPRESS)
    a = parser.parse_args()
    if a.ipython_child:
        ipython_child(a.ipython_child)
        return 0
    use_set(a.set)
    if a.labels_only:
        write_labels(a.set)
        return 0
    programs = programs_of(a.set)
    if a.wave:
        programs = [p for p in programs if int(header(p).get("wave", "1")) == a.wave]
    if a.only:
        programs = [p for p in programs if p.stem in a.only]
    shutil.rmtree(RUN_DIR, ignore_errors=True)
    shutil.copytree(PROGRAMS, RUN_DIR)
    FIXTURES.mkdir(parents=True, exist_ok=True)

    def one(path: Path) -> tuple[str, bool, str]:
        h = header(path)
        text = terminal_text(run(path.stem, h.get("mode", "plain")))
        if h["family"] == "hub-access":  # the stand-in Hub's address reads as the Hub's own in what is kept
            text = re.sub(r"http://127\.0\.0\.1:\d+", "https://huggingface.co", text)
        ok = re.search(h["expect"], text) is not None
        if ok:
            (FIXTURES / f"{path.stem}.txt").write_text(text, encoding="utf-8")
        return path.stem, ok, text

    with ThreadPoolExecutor(a.jobs) as pool:
        results = list(pool.map(one, programs))
    for name, ok, text in results:
        tail = text.strip().splitlines()[-1][:150] if text.strip() else "(nothing printed)"
        print(f"{'saved ' if ok else 'FAILED'} {name}: {tail}")
    write_labels(a.set)
    return 0 if all(ok for _, ok, _ in results) else 1


def write_labels(name: str) -> None:
    """labels.toml: one [[label]] per saved fixture, from its program's header."""
    v = versions()
    lines = [f"# Labels of the {name} fixtures: real output of the programs under benchmarks/runtime_tracebacks/,",
             "# written by benchmarks/runtime_tracebacks.py (CPU only, 2 gloo processes for the distributed ones).",
             "# family: the kb family the failure belongs to (\"none\": out of scope, kb must leave it unclaimed);",
             "# case: the case id where one fits (else \"\");",
             "# labelled from what each program does, before kb was run on any of them.",
             "[versions]"]
    lines += [f"{k} = {toml_str(val)}" for k, val in v.items()]
    for path in programs_of(name):
        if not (FIXTURES / f"{path.stem}.txt").exists():
            continue
        h = header(path)
        lines += ["", "[[label]]", f"file = {toml_str(path.stem + '.txt')}", f"program = {toml_str(path.name)}",
                  f"family = {toml_str(h['family'])}", f"case = {toml_str(h.get('case', ''))}",
                  f"mode = {toml_str(h.get('mode', 'plain'))}", f"note = {toml_str(h.get('note', ''))}",
                  f"wave = {int(h.get('wave', '1'))}"]
        if path.stem in RELABELS:  # the label the first score was taken with, kept beside the one changed after it
            lines[-5] = f"family = {toml_str(RELABELS[path.stem][0])}"
            lines += [f"first_family = {toml_str(h['family'])}", f"relabel = {toml_str(RELABELS[path.stem][1])}"]
        if path.stem in CASE_RELABELS:  # the same for a case label
            lines[max(i for i, line in enumerate(lines) if line.startswith("case = "))] = f"case = {toml_str(CASE_RELABELS[path.stem][0])}"
            lines += [f"first_case = {toml_str(h.get('case', ''))}", f"relabel = {toml_str(CASE_RELABELS[path.stem][1])}"]
    (FIXTURES / "labels.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
