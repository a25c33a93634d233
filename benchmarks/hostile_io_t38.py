"""Turn 38's held-out red team for benchmarks/hostile_io.py (issue 26): forms of each class that the first driver
and turn 37's did not have. Each name starts with ``t38``, so ``--only t38`` runs just these.

E1 escapes the earlier lists lacked (OSC 133/9/777/4/10/50, DSR and report queries that make a terminal type into
kb's standard input, DECRQSS, tmux passthrough, sixel, SS3, S7C1T, ESC before a line end, colon sub-parameters,
a C1 CSI inside an OSC) and the channels they came through: UTF-16 and UTF-32 input without a BOM, CR-only input,
8-bit C1 bytes in Latin-1 input, JSON's \\u001b and YAML's \\e escapes in config values, device-map keys and model
types, plan's other choice flags; E2 vendor tokens of turn 38's shapes in config values, launch variables, a YAML
block scalar and NVML names; R1 SIGPIPE after 64 KiB, a non-blocking standard output (EAGAIN), a socket whose reader
is gone; R2 a non-blocking empty standard input, a socket, a FIFO; R3 CR-only input in other encodings, a CRLF cut at
a read's boundary, a 2 MB progress bar of CRs; C1 long UTF-16 lines, a 4-byte character across a read's boundary,
kb's own cuts of arguments and lines (every output must be valid UTF-8); L1 --limit and --width in Unicode digits
(Arabic-Indic, full-width, mathematical), signs, spaces, underscores, exponents, and huge environment values (HOME,
XDG_CACHE_HOME, TERM, LANG, PATH); P1/P2 the cache: XDG_CACHE_HOME a file, /dev/null, a link or a world-writable
folder, a cache file planted as a FIFO, a link to /dev/zero, garbage, a sparse 2 GiB file, writable by others or owned
by another user, HOME unset or "/"; N1 more NVML failures (benchmarks/fake_nvml: t38 modes); K1-K3 1e309, -0,
duplicate keys, NaN keys, BOMs of UTF-16/32, deep nesting in device maps, YAML 1.1 numbers.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
from collections.abc import Callable
from pathlib import Path

from hostile_io import ERROR, PY, TB, Form, cache_seed, config_forms

ESCAPES38 = {
    "osc133": "\x1b]133;A\x07", "osc9": "\x1b]9;notify\x07", "osc777": "\x1b]777;notify;t;b\x1b\\",
    "osc4-palette": "\x1b]4;1;rgb:ff/00/00\x07", "osc10-query": "\x1b]10;?\x07", "osc50-font": "\x1b]50;x\x07",
    "dsr": "\x1b[6n", "title-report": "\x1b[21t", "da2": "\x1b[>c", "decrqss": "\x1bP$qm\x1b\\",
    "tmux-passthrough": "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\", "sixel": "\x1bPq#0;2;0;0;0#0~~\x1b\\",
    "ss3": "\x1bOA", "s7c1t": "\x1b F", "esc-newline": "\x1b\n[2J", "csi-colon": "\x1b[38:2:255:0:0m",
    "sync": "\x1b[?2026h", "csi-huge-param": "\x1b[99999999999999999999C", "c1-in-osc": "\x1b]0;\x9b2J\x07",
    "bs-erase": "abc\x08 \x08\x08 \x08", "del-run": "\x7f" * 20, "bel-run": "\x07" * 20, "nul-in-osc": "\x1b]0;a\x00b\x07",
    "esc-space-esc": "\x1b \x1b[2J", "osc-utf8-st": "\x1b]0;t\u009c", "dcs-unterminated": "\x1bPq#0",
}
# fake tokens of turn 38's shapes (random-looking, made up here)
TOKENS = {
    "openrouter": "sk-or-v1-" + "9f2c4a7e1b3d5f60" * 4, "gitlab-feed": "glft-Zq8Wm2Lp5Rt9Xv3Bn7Kc",
    "slack-client": "xoxc-123456789012-123456789012-1234567890123-" + "a1b2c3d4e5f60718" * 4,
    "fly": "FlyV1 fm2_lJPECAAAAAAAAMqRxBDm8Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPqZq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0Mn",
    "netlify": "nfp_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPq",
}
SECRETS = ("9f2c4a7e1b3d5f60", "Zq8Wm2Lp5Rt9Xv3Bn7Kc", "a1b2c3d4e5f60718", "m2Lp5Rt9Xv3Bn7Kc1Hd4")

NONBLOCK = """import fcntl, os, sys
fd = int(sys.argv[1])
fcntl.fcntl(fd, fcntl.F_SETFL, fcntl.fcntl(fd, fcntl.F_GETFL) | os.O_NONBLOCK)
os.execv(sys.argv[2], sys.argv[2:])
"""
SOCKET_OUT = """import os, socket, subprocess, sys
a, b = socket.socketpair()
b.close()  # the reader is gone before kb writes
p = subprocess.run(sys.argv[1:], stdout=a.fileno(), stderr=subprocess.PIPE)
sys.stderr.buffer.write(p.stderr)
print(p.returncode)
"""
SOCKET_IN = """import os, socket, subprocess, sys
a, b = socket.socketpair()
b.sendall(open(sys.argv[1], "rb").read())
b.close()
p = subprocess.run(sys.argv[2:], stdin=a.fileno(), capture_output=True)
sys.stderr.buffer.write(p.stderr + p.stdout)
print(p.returncode)
"""



def turn38_forms(tmp: Path, write: Callable[[str, bytes | str], str]) -> list[Form]:
    forms: list[Form] = []
    add = forms.append
    body = TB + ERROR + "\n"
    log = write("t38.log", body)
    model = "qwen2.5-0.5b"

    # ------------------------------------------------------------ E1: new sequences, new channels
    for key, seq in ESCAPES38.items():
        text = f"{seq}\n{TB}{ERROR} {seq}\nValueError: {seq}bad{seq}\n"
        for enc, data in (("utf-8", text.encode("utf-8")), ("utf-16-le", text.encode("utf-16-le")),
                          ("utf-16-be", text.encode("utf-16-be")), ("utf-32-le", text.encode("utf-32-le")),
                          ("cr-only", text.replace("\n", "\r").encode("utf-8"))):
            path = write(f"t38-e1-{key}-{enc}.log", data)
            add(Form(f"t38 diagnose {enc} {key}", "E1", ["diagnose", path, "--all"]))
            if enc in ("utf-8", "utf-16-le"):
                add(Form(f"t38 diagnose json {enc} {key}", "E1", ["diagnose", path, "--format", "json", "--all"]))
        name = seq.replace("\x00", "")
        for flag in ("--quant", "--strategy", "--task", "--offload", "--ref", "--target-modules"):
            add(Form(f"t38 plan {flag} {key}", "E1", ["plan", "--model", model, flag, f"x{name}"], codes=(0, 1, 2),
                     error_line=True))
        cfg = write(f"t38-e1-json-escaped-{key}.json", json.dumps({"optim": seq, "run_name": seq, seq: 1,
                                                                  "report_to": [seq]}, ensure_ascii=True))
        add(Form(f"t38 env --config json-escaped {key}", "E1", ["env", "--config", cfg], error_line=True))
        add(Form(f"t38 plan --from json-escaped {key}", "E1", ["plan", "--from", cfg, "--model", model],
                 error_line=True))
        mcfg = write(f"t38-e1-model-{key}.json", json.dumps({"model_type": f"llama{seq}", "hidden_size": 64,
                                                             "num_hidden_layers": 2, "num_attention_heads": 4,
                                                             "intermediate_size": 128, "vocab_size": 1000,
                                                             "architectures": [seq]}, ensure_ascii=True))
        add(Form(f"t38 plan --config json-escaped {key}", "E1", ["plan", "--config", mcfg], error_line=True))
        add(Form(f"t38 plan --device-map json-escaped key {key}", "E1",
                 ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map",
                  json.dumps({f"model.x{seq}": 0, "": 1}, ensure_ascii=True)], codes=(0, 1, 2), error_line=True))
    yaml = write("t38-e1-yaml-escapes.yaml", 'optim: "\\e]52;c;eA==\\a\\e[2J"\nrun_name: "\\x9b2J\\u202e"\n'
                                             'per_device_train_batch_size: "\\e[6n"\n')
    for args in (["env", "--config", yaml], ["env", "--config", yaml, "--format", "json"],
                 ["plan", "--from", yaml, "--model", model]):
        add(Form(f"t38 yaml \\e escapes: {' '.join(args[:2])}", "E1", args, error_line=True))
    for byte in (b"\x9b", b"\x9d", b"\x90", b"\x9e", b"\x9f", b"\x8d", b"\x8e"):
        data = (b"caf\xe9 " + byte + b"2J\r" + TB.encode().replace(b"\n", b"\r") + ERROR.encode() + b" na\xefve "
                + byte + b"0;t\x07\r")
        path = write(f"t38-latin1-cr-{byte.hex()}.log", data)
        add(Form(f"t38 latin-1 CR-only C1 {byte.hex()}", "E1", ["diagnose", path, "--all"]))
        add(Form(f"t38 latin-1 CR-only C1 {byte.hex()} json", "E1", ["diagnose", path, "--format", "json", "--all"]))

    # ------------------------------------------------------------ E2: turn 38's tokens where kb prints config values
    values = {"hub_token": TOKENS["openrouter"], "run_name": f"run {TOKENS['gitlab-feed']}",
              "report_to": ["wandb", TOKENS["netlify"]], "push_to_hub_model_id": TOKENS["slack-client"],
              "optim": f"adamw_torch {TOKENS['fly']}"}
    configs = [(name, f"t38-e2-config.{name}", data) for name, data in (
        ("json", json.dumps(values)), ("yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items())),
        ("yaml-block", f"hub_token: |\n  {TOKENS['netlify']}\noptim: >-\n  adamw {TOKENS['openrouter']}\n"))]
    forms.extend(config_forms("t38", configs, write, SECRETS, model))
    for fmt in ("text", "json"):
        add(Form(f"t38 env launch variables hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"MASTER_ADDR": TOKENS["netlify"], "CUDA_VISIBLE_DEVICES": TOKENS["openrouter"],
                      "RANK": TOKENS["gitlab-feed"], "ACCELERATE_MIXED_PRECISION": TOKENS["slack-client"]}))
        add(Form(f"t38 nvml secret names t38 {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"FAKE_NVML": "secret-names-t38"}))
        add(Form(f"t38 plan --model openrouter token {fmt}", "E2", ["plan", "--model", TOKENS["openrouter"],
                                                                   "--format", fmt], secrets=SECRETS, codes=(2,),
                 error_line=True))
        add(Form(f"t38 diagnose missing file named by a token {fmt}", "E2",
                 ["diagnose", str(tmp / f"{TOKENS['netlify']}.log"), "--format", fmt], secrets=SECRETS, codes=(2,),
                 error_line=True))

    # ------------------------------------------------------------ R1/R2/R3: streams and line ends
    big = write("t38-big.log", body * 20000)
    nb = write("t38-nonblock.py", NONBLOCK)
    sock_out = write("t38-socket-out.py", SOCKET_OUT)
    sock_in = write("t38-socket-in.py", SOCKET_IN)
    for args in (["diagnose", big, "--all"], ["diagnose", big, "--format", "json", "--all"], ["list"],
                 ["plan", "--list-models"]):
        quoted = " ".join(f"'{a}'" for a in args)
        add(Form(f"t38 SIGPIPE after 64 KiB: kb {' '.join(args[:1])} {args[-1]}", "R1", args, codes=(0,),
                 shell=f"@KB@ {quoted} 2>/tmp/kb-t38-pipe-$$ | head -c 70000 >/dev/null; rc=${{PIPESTATUS[0]}}; "
                       f"cat /tmp/kb-t38-pipe-$$ >&2; rm -f /tmp/kb-t38-pipe-$$; echo $rc"))
        add(Form(f"t38 stdout non-blocking, slow reader: kb {' '.join(args[:1])} {args[-1]}", "R1", args,
                 codes=(0, 2), timeout=90,
                 shell=f"'{PY}' '{nb}' 1 '{PY}' -m kb {quoted} 2>/tmp/kb-t38-nb-$$ | (sleep 1; cat >/dev/null); "
                       f"rc=${{PIPESTATUS[0]}}; cat /tmp/kb-t38-nb-$$ >&2; rm -f /tmp/kb-t38-nb-$$; echo $rc"))
        add(Form(f"t38 stdout a socket without reader: kb {' '.join(args[:1])} {args[-1]}", "R1", args, codes=(0, 2),
                 shell=f"'{PY}' '{sock_out}' '{PY}' -m kb {quoted}"))
    add(Form("t38 stdin non-blocking, empty", "R2", ["diagnose", "-"], codes=(0, 1, 2), error_line=True,
             shell=f"(sleep 1; cat '{log}') | '{PY}' '{nb}' 0 '{PY}' -m kb diagnose -; echo ${{PIPESTATUS[1]}}"))
    add(Form("t38 stdin non-blocking json", "R2", ["diagnose", "-"], codes=(0, 1, 2), error_line=True,
             shell=f"(sleep 1; cat '{log}') | '{PY}' '{nb}' 0 '{PY}' -m kb diagnose - --format json; "
                   f"echo ${{PIPESTATUS[1]}}"))
    add(Form("t38 stdin a socket", "R2", ["diagnose", "-"], codes=(0,), shell=f"'{PY}' '{sock_in}' '{log}' '{PY}' -m kb "
                                                                              "diagnose -"))
    fifo, fifo2 = tmp / "t38-stdin.fifo", tmp / "t38-path.fifo"  # (one each: the forms run side by side)
    os.mkfifo(fifo)
    os.mkfifo(fifo2)
    add(Form("t38 stdin a FIFO", "R2", ["diagnose", "-"], codes=(0,), timeout=30,
             shell=f"(cat '{log}' > '{fifo}' &); @KB@ diagnose - < '{fifo}'; echo $?"))
    add(Form("t38 diagnose a FIFO path", "R2", ["diagnose"], codes=(0,), timeout=30,
             shell=f"(sleep 0.5; cat '{log}' > '{fifo2}' &); @KB@ diagnose '{fifo2}'; echo $?"))
    sock_path = tmp / "t38.sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock_path))
    server.close()
    add(Form("t38 diagnose a socket path", "R2", ["diagnose", str(sock_path)], codes=(2,), error_line=True))
    add(Form("t38 stdin /dev/null", "R2", ["diagnose", "-"], codes=(0, 1, 2), error_line=True,
             shell="@KB@ diagnose - </dev/null; echo $?"))
    crlf_cut = ("x" * 65535 + "\r\n" + body).encode()
    for name, data in (("cr-only-utf16", body.replace("\n", "\r").encode("utf-16")),
                       ("cr-only-utf32", body.replace("\n", "\r").encode("utf-32")),
                       ("cr-only-latin1", ("caf\xe9\r" + body.replace("\n", "\r")).encode("latin-1")),
                       ("crlf-at-64k", crlf_cut), ("progress-2mb", (" 42%|████▏     | 42/100 [00:01<00:02]\r" * 50000
                                                                     + "\n" + body).encode()),
                       ("cr-escape", ("\r\x1b[2K" + body.replace("\n", "\r\x1b[K\n")).encode()),
                       ("cr-then-nul", body.replace("\n", "\r\x00").encode())):
        path = write(f"t38-r3-{name}.log", data)
        add(Form(f"t38 line ends {name}", "R3", ["diagnose", path], error_line=True, timeout=60))
        if name not in ("cr-only-utf16", "cr-only-utf32", "cr-then-nul"):  # (refused in one line, exit 2: documented)
            add(Form(f"t38 line ends {name} answered", "R3", ["diagnose", path, "--format", "json"], codes=(0,),
                     shows='"id"', timeout=60))

    # ------------------------------------------------------------ C1: encodings and kb's own cuts
    for name, data in (("utf16-long-line", ("中" * 200_000 + "\n" + body).encode("utf-16")),
                       ("utf16le-nobom-long", ("x" * 100_000 + " " + body).encode("utf-16-le")),
                       ("utf32le-nobom", body.encode("utf-32-le")), ("utf32be-nobom", body.encode("utf-32-be")),
                       ("4byte-across-64k", ("a" * 65534 + "😀" + "\n" + body).encode()),
                       ("3byte-across-64k", ("a" * 65535 + "中" + "\n" + body).encode()),
                       ("combining-long", ("e\u0301" * 60_000 + "\n" + body).encode()),
                       ("zwj-emoji-long", ("👩\u200d💻" * 30_000 + "\n" + body).encode()),
                       ("emoji-in-error", (TB + "RuntimeError: " + "😀" * 5000 + " expected mat1 and mat2 to have the "
                                           "same dtype\n").encode()),
                       ("utf16-surrogates-cut", body.encode("utf-16-le") + "😀".encode("utf-16-le")[:2])):
        path = write(f"t38-c1-{name}.log", data)
        for args in (["diagnose", path, "--all"], ["diagnose", path, "--format", "json", "--all"],
                     ["diagnose", path, "--width", "13"]):
            add(Form(f"t38 encoding {name} {' '.join(args[2:])}", "C1", args, error_line=True, timeout=60))
    for name, arg in (("missing file emoji", str(tmp / ("😀" * 300 + ".log"))), ("missing file combining",
                                                                                  str(tmp / ("e\u0301" * 400)))):
        add(Form(f"t38 cut: {name}", "C1", ["diagnose", arg], codes=(2,), error_line=True))
    add(Form("t38 cut: plan --model emoji", "C1", ["plan", "--model", "😀" * 5000], codes=(2,), error_line=True))
    add(Form("t38 cut: show emoji", "C1", ["show", "KB" + "😀" * 5000], codes=(2,), error_line=True))

    # ------------------------------------------------------------ L1: argument and environment numbers
    for value in ("١٢", "٠", "۱۲", "１２", "𝟏𝟐", "-0", "+3", " 3", "3 ", "3_0", "1e1", "1.0", "0x1", "", "Infinity",
                  "³", "三", "१२", "\u00a03", "3\u200b"):
        for args in (["diagnose", log, "--limit", value], ["diagnose", log, f"--limit={value}"],
                     ["diagnose", log, "--width", value], ["plan", "--model", model, "--gpus", value],
                     ["plan", "--model", model, "--seq", value]):
            add(Form(f"t38 number {value!r} {' '.join(a for a in args if a.startswith('--'))}", "L1", args,
                     codes=(0, 1, 2), error_line=True))
    add(Form("t38 --limit twice", "L1", ["diagnose", log, "--limit", "1", "--limit", "0"], codes=(0, 2),
             error_line=True))
    huge = "x" * 100_000
    for var, value in (("HOME", "/" + huge), ("XDG_CACHE_HOME", "/tmp/" + huge), ("TERM", huge), ("LANG", huge),
                       ("LC_ALL", "C"), ("LC_ALL", "tr_TR.UTF-8"), ("LANG", "C.ASCII"), ("PATH", "/usr/bin:" + huge),
                       ("COLUMNS", "١٢٠"), ("COLUMNS", "１２０"), ("NO_COLOR", huge), ("PYTHONIOENCODING", "utf-8:strict"),
                       ("KB_CACHE_DIR", "/" + "a/" * 3000), ("TMPDIR", "/" + huge)):
        for args in (["diagnose", log], ["env"], ["diagnose", "--env", "--format", "json", log]):
            add(Form(f"t38 env {var}={value[:12]!r}: {' '.join(args[:2])}", "L1", args, env={var: value},
                     codes=(0, 1)))

    # ------------------------------------------------------------ P1/P2: the cache
    seed = cache_seed(tmp, log, "t38-cache-seed")
    files = [p for p in (seed / "kb").glob("*") if p.is_file()]
    plants: dict[str, Callable[[Path], None]] = {
        "fifo": lambda p: (p.unlink(), os.mkfifo(p)),
        "link-dev-zero": lambda p: (p.unlink(), p.symlink_to("/dev/zero")),
        "garbage": lambda p: p.write_bytes(os.urandom(4096)),
        "truncated": lambda p: p.write_bytes(p.read_bytes()[: len(p.read_bytes()) // 2]),
        "sparse-2gib": lambda p: os.truncate(p, 2 * 2**30),
        "directory": lambda p: (p.unlink(), p.mkdir()),
        "world-writable": lambda p: p.chmod(0o666),
        "other-owner": lambda p: os.chown(p, 65534, 65534),
        "empty": lambda p: p.write_bytes(b""),
    }
    for name, plant in plants.items():
        home = tmp / f"t38-cache-{name}"
        shutil.copytree(seed, home, symlinks=True)
        for path in (home / "kb").glob("*"):
            if path.is_file():
                plant(path)
        for args in (["diagnose", log], ["list"]):
            add(Form(f"t38 cache planted {name}: {args[0]}", "P2", args, env={"XDG_CACHE_HOME": str(home)},
                     codes=(0,), timeout=60, shows="KB" if args[0] == "list" else ""))
    if not files:
        add(Form("t38 cache seed: kb wrote no cache file", "P2", ["list"], codes=(99,)))
    a_file = write("t38-xdg-a-file", "x")
    linked = tmp / "t38-xdg-link"
    linked.symlink_to(seed)
    open_dir = tmp / "t38-xdg-777"
    shutil.copytree(seed, open_dir)
    os.chmod(open_dir / "kb", 0o777)
    other = tmp / "t38-xdg-other"
    shutil.copytree(seed, other)
    os.chown(other / "kb", 65534, 65534)
    for name, env in (("XDG a file", {"XDG_CACHE_HOME": a_file}), ("XDG /dev/null", {"XDG_CACHE_HOME": "/dev/null"}),
                      ("XDG a link", {"XDG_CACHE_HOME": str(linked)}), ("XDG kb 0777", {"XDG_CACHE_HOME": str(open_dir)}),
                      ("XDG kb another user's", {"XDG_CACHE_HOME": str(other)}),
                      ("HOME unset", {"HOME": None, "XDG_CACHE_HOME": None}), ("HOME /", {"HOME": "/", "XDG_CACHE_HOME": None}),
                      ("KB_CACHE_DIR /dev/null", {"KB_CACHE_DIR": "/dev/null"}), ("KB_CACHE_DIR /proc", {"KB_CACHE_DIR": "/proc"})):
        for args in (["diagnose", log], ["list"]):
            add(Form(f"t38 cache {name}: {args[0]}", "P1", args, env=env, codes=(0,), timeout=60))

    # ------------------------------------------------------------ N1: more NVML failures
    for mode in ("name-latin1-c1", "recursion", "count-bool", "handle-none", "memory-no-attrs", "cc-str",
                 "driver-huge", "procs-generator", "pid-huge", "name-bidi", "init-oserror", "count-valueerror",
                 "name-str-raises", "memory-bool", "procs-dicts"):
        for args in (["env"], ["env", "--format", "json"], ["diagnose", "--env", log]):
            add(Form(f"t38 nvml {mode}: {' '.join(args[:3])}", "N1", args, env={"FAKE_NVML": mode}, codes=(0, 1),
                     timeout=60))

    # ------------------------------------------------------------ K1-K3: plan input
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}
    raw_configs = {
        "1e309-hidden": json.dumps(base).replace('"hidden_size": 4096', '"hidden_size": 1e309'),
        "minus-zero-layers": json.dumps(base).replace('"num_hidden_layers": 32', '"num_hidden_layers": -0'),
        "minus-zero-float-heads": json.dumps(base).replace('"num_attention_heads": 32', '"num_attention_heads": -0.0'),
        "duplicate-type-change": json.dumps(base)[:-1] + ', "hidden_size": "big"}',
        "duplicate-nested": json.dumps({**base, "text_config": {"hidden_size": 64}})[:-1] + ', "text_config": 5}',
        "utf16-bom": "\ufeff" + json.dumps(base), "exp-upper": json.dumps(base).replace("4096", "4.096E3"),
        "leading-zero": json.dumps(base).replace("4096", "04096"), "plus-sign": json.dumps(base).replace("4096", "+4096"),
        "big-int-key": json.dumps({**base, "9" * 5000: 1}), "million-keys": json.dumps({**base, **{f"k{i}": i for i in range(300_000)}}),
        "nan-vocab": json.dumps(base).replace("128256", "NaN"), "neg-inf-layers": json.dumps(base).replace(
            '"num_hidden_layers": 32', '"num_hidden_layers": -Infinity'),
    }
    for name, text in raw_configs.items():
        encoding = "utf-16" if name == "utf16-bom" else "utf-8"
        path = write(f"t38-k1-{name}.json", text.encode(encoding) if encoding == "utf-16" else text)
        if name == "utf16-bom":
            Path(path).write_bytes(json.dumps(base).encode("utf-16"))
        add(Form(f"t38 config {name}", "K1", ["plan", "--config", path, "--gpu-gib", "24"], error_line=True,
                 timeout=60))
    settings_raw = {
        "batch-1e309": '{"per_device_train_batch_size": 1e309}', "batch-minus-zero": '{"per_device_train_batch_size": -0}',
        "seq-minus-zero-float": '{"max_seq_length": -0.0}', "dup-batch": '{"per_device_train_batch_size": 2, '
                                                                       '"per_device_train_batch_size": "x"}',
        "lora-r-1e309": '{"lora_r": 1e309}', "dropout-nan": '{"lora_dropout": NaN}',
        "deepspeed-deep": '{"deepspeed": ' + '{"a": ' * 5000 + "1" + "}" * 5000 + "}",
        "utf32-bom": "UTF32", "yaml-sexagesimal": "per_device_train_batch_size: 1:30\n",
        "yaml-octal": "per_device_train_batch_size: 0o17\nmax_seq_length: 0b101\n",
        "yaml-underscore": "per_device_train_batch_size: 1_0\nlora_r: 1_000_000_000_000_000_000_000\n",
        "yaml-float-tag": "per_device_train_batch_size: !!float 1e309\n", "yaml-int-hex": "max_seq_length: !!int 0x10\n",
        "yaml-nan-key": ".nan: 1\nper_device_train_batch_size: 2\n", "yaml-null-key": "~: 1\nlora_r: ~\n",
    }
    for name, text in settings_raw.items():
        ext = "yaml" if name.startswith("yaml") else "json"
        data: bytes | str = json.dumps({"per_device_train_batch_size": 2}).encode("utf-32") if text == "UTF32" else text
        path = write(f"t38-k1-from-{name}.{ext}", data)
        add(Form(f"t38 --from {name}", "K1", ["plan", "--from", path, "--model", model, "--gpu-gib", "24"],
                 error_line=True, timeout=60))
        add(Form(f"t38 env --config {name}", "K1", ["env", "--config", path], error_line=True, timeout=60))
    maps = {
        "nan-key-nan-value": '{"NaN": NaN}', "1e309-gpu": '{"": 1e309}', "minus-zero-gpu": '{"": -0}',
        "minus-zero-float-gpu": '{"": -0.0}', "float-integral-gpu": '{"": 1.0}', "dup-conflict": '{"": 0, "": "cpu"}',
        "deep-array": "[" * 20_000 + "]" * 20_000, "deep-object-value": '{"": ' + "[" * 5000 + "0" + "]" * 5000 + "}",
        "bom-text": "\ufeff{\"\": 0}", "exp-gpu": '{"": 1E0}', "neg-inf-gpu": '{"": -Infinity}',
        "big-int-layer": '{"model.layers.' + "1" * 4400 + '": 0}', "true-key": '{"true": 0}',
    }
    for name, text in maps.items():
        add(Form(f"t38 device map {name}", "K3", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map", text],
                 error_line=True, timeout=30))
    for name, data in (("utf16-bom", json.dumps({"": 0}).encode("utf-16")), ("utf32-bom", json.dumps({"": 0}).encode("utf-32")),
                       ("utf16le-nobom", json.dumps({"": 0}).encode("utf-16-le"))):
        path = write(f"t38-k3-map-{name}.json", data)
        add(Form(f"t38 device map file {name}", "K3", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map",
                                                       path], error_line=True, timeout=30))
    for flag, values in (("--batch", ("-0", "+2", "2.0", "1e309", "٢")), ("--gpus", ("-0", "+1", "1e0", "١")),
                         ("--gpu-gib", ("-0.0", "1e309", "+8", "８", "8e0", "0x8")), ("--seq", ("-0", "1e309", "٥١٢")),
                         ("--lora-r", ("-0", "1e309")), ("--grad-accum", ("-0", "+1"))):
        for value in values:
            add(Form(f"t38 flag {flag} {value!r}", "K3", ["plan", "--model", model, flag, value,
                                                          *(["--gpu-gib", "8"] if flag != "--gpu-gib" else [])],
                     codes=(0, 1, 2), error_line=True))
    return forms


if __name__ == "__main__":  # pragma: no cover - run through benchmarks/hostile_io.py --only t38
    sys.exit("run: python benchmarks/hostile_io.py --only t38")
