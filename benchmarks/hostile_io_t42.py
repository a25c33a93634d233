"""Turn 42's held-out red team for benchmarks/hostile_io.py (issue 26), the classes other than wrapped tokens (hostile42):
forms of each class that the first driver and turns 37-41 did not have. Each name starts with ``t42``, so ``--only t42``
runs just these.

E1 escapes that come back when an invisible character between ESC and its introducer is taken out (a zero-width space,
a soft hyphen, a combining accent, a CGJ), escapes whose ESC an encoding carries that earlier forms did not (HTML's
&#0027; and &#x1B without a semicolon, Perl's \\x{1b}, Python's \\U0000001b, Markdown-escaped \\\\x1b), OSCs not tried
(22 pointer shape, 51 an editor's eval, 112 cursor colour reset, 1337 SetUserVar) and CSIs (DECRQM, XTWINOPS resize
and iconify, DECSTR, media copy), in a log (text and JSON), `kb show`'s and `kb explain`'s argument, a YAML config,
KB_WIDTH and COLUMNS; E2 turn 42's token shapes where kb prints (config values through the shared helper, launch
variables, `kb show`, `kb plan --model`, the api-drift section: a missing positional, a NameError, a deprecation's
replacement, NVML names); R1/R2 resource limits (ulimit -n 5, ulimit -f 0 with the output a file), a deleted working
folder, SIGTERM and SIGHUP while reading; R3 a CRLF cut by the 1 MiB block, NEL / U+2028 / form feeds as line ends;
C1 UTF-32 without a BOM, Shift-JIS, EBCDIC; L1 --width and --limit past every bound, launch counts (LOCAL_WORLD_SIZE,
OMP_NUM_THREADS, --nproc) of 5,000 digits; N1 benchmarks/fake_nvml's turn 42 modes (ten million GPUs, a million
processes, an AttributeError or LookupError from a name, escapes that a second pass rebuilds, tokens in names);
K1-K3 booleans and strings where numbers go, zero key-value heads, null sizes, a device map's layer -1 and 10**12;
P1/P2 the cache at a symlink loop, /proc/self, a path ending in a newline.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from hostile_io import ERROR, PY, TB, Form, config_forms

# fake tokens of turn 42's shapes (made up here)
TOKENS = {"swarm": "SWMTKN-1-k7m2q9x4b8n3v6c1z5l0p7r2t9w4y8h3j6f1d5k7m2q9x4b8n3-v6c1z5l0p7r2t9w4y8h3j6f1d",
          "k3s": "K10" + "9f2c4a7e1b3d5f60" * 4 + "::server:" + "a1b2c3d4e5f60718" * 2,
          "riot": "RGAPI-9f2c4a7e-1b3d-5f60-9f2c-4a7e1b3d5f60", "xata": "xau_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPqRs",
          "logfire": "pylf_v1_us_Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0XcVbNm1Qw2Er3Ty4",
          "woo": "cs_" + "0718a1b2c3d4e5f6" * 2 + "9f2c4a7e", "mandrill": "md-Hq3Zt8Kc1Lp5Rv9Xw2Bn7M",
          "ory": "ory_pat_Mn4Bv8Cx2Zl6Kj0Hg5Fd3Sa7Qw1Er9Ty"}
SECRETS = ("k7m2q9x4b8n3v6c1z5l0", "9f2c4a7e1b3d5f609f2c", "9f2c4a7e-1b3d-5f60", "Zq8Wm2Lp5Rt9Xv3Bn7Kc",
           "Qw7Er5Ty3Ui1Op9As8Df", "0718a1b2c3d4e5f6", "Hq3Zt8Kc1Lp5Rv9X", "Mn4Bv8Cx2Zl6Kj0Hg5Fd")

ESCAPES = {
    "zwsp-rebuilds-osc52": "\x1b\u200b]52;c;ZXZpbA==\x07", "soft-hyphen-rebuilds-csi": "\x1b\u00ad[2J",
    "combining-rebuilds-csi": "\x1b\u0301[6n", "cgj-rebuilds-osc0": "\x1b\u034f]0;pwned\x07",
    "double-esc-zw": "\x1b\x1b\u200b[[3J", "wj-rebuilds-dcs": "\x1b\u2060P$qm\x1b\\",
    "osc22-pointer": "\x1b]22;watch\x07", "osc51-eval": "\x1b]51;Eshell-command rm\x07", "osc112": "\x1b]112\x07",
    "osc1337-uservar": "\x1b]1337;SetUserVar=x=ZXZpbA==\x07", "decrqm": "\x1b[?2026$p", "xtwinops-resize": "\x1b[8;5;5t",
    "xtwinops-iconify": "\x1b[2t", "decstr": "\x1b[!p", "media-copy": "\x1b[5i", "c1-nel-ind-ri": "\x84\x85\x8d",
}
ENCODED = {  # an ESC that an encoding carries (kb decodes these encodings when it reads a paste)
    "html-zeropad": "&#0027;]52;c;ZXZpbA==&#0007;", "html-hex-no-semicolon": "&#x1B[2J &#x1b]0;pwned&#x07",
    "perl-hex-brace": "\\x{1b}]0;pwned\\x{07}", "python-U8": "\\U0000001b]52;c;ZXZpbA==\\U00000007",
    "markdown-escaped": "\\\\x1b\\[2J", "json-u-upper": "\\u001B]0;pwned\\u0007",
}


def turn42_forms(tmp: Path, write: Callable[[str, bytes | str], str]) -> list[Form]:
    forms: list[Form] = []
    add = forms.append
    body = TB + ERROR + "\n"
    log = write("t42.log", body)
    model = "qwen2.5-0.5b"
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}

    # ------------------------------------------------------------ E1: escapes rebuilt, encoded, not tried
    for key, seq in ESCAPES.items():
        path = write(f"t42-e1-{key}.log", f"{seq}\n{TB}{ERROR} {seq}\nValueError: {seq}bad{seq}\n")
        add(Form(f"t42 diagnose text {key}", "E1", ["diagnose", path]))
        add(Form(f"t42 diagnose json --all {key}", "E1", ["diagnose", path, "--format", "json", "--all"]))
        add(Form(f"t42 show argument {key}", "E1", ["show", f"KB0001{seq}"], codes=(2,), error_line=True))
        add(Form(f"t42 explain argument {key}", "E1", ["explain", f"dtype{seq}"], codes=(2,), error_line=True))
        yaml = write(f"t42-e1-{key}.yaml", "optim: " + json.dumps(seq) + "\nrun_name: " + json.dumps(f"x{seq}") + "\n")
        add(Form(f"t42 env --config yaml {key}", "E1", ["env", "--config", yaml], error_line=True))
        add(Form(f"t42 KB_WIDTH holds {key}", "E1", ["diagnose", log], env={"KB_WIDTH": f"80{seq}", "COLUMNS": seq}))
    for key, text in ENCODED.items():
        path = write(f"t42-e1-enc-{key}.log", TB + ERROR + " " + text + "\nValueError: " + text + "\n")
        for fmt in ("text", "json"):
            add(Form(f"t42 escapes encoded {key} {fmt}", "E1", ["diagnose", path, "--format", fmt, "--all"]))

    # ------------------------------------------------------------ E2: turn 42's token shapes where kb prints
    values = {"hub_token": TOKENS["swarm"], "run_name": f"run {TOKENS['k3s']}", "report_to": ["wandb", TOKENS["riot"]],
              "hub_model_id": TOKENS["xata"], "optim": f"adamw_torch {TOKENS['logfire']}",
              "output_dir": f"/runs/{TOKENS['woo']}", "logging_dir": TOKENS["mandrill"], "push_to_hub_token": TOKENS["ory"]}
    configs = [("json", "t42-e2-config.json", json.dumps(values)),
               ("yaml", "t42-e2-config.yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items()))]
    forms.extend(config_forms("t42", configs, write, SECRETS, model))
    for fmt in ("text", "json"):
        add(Form(f"t42 env launch variables hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"MASTER_ADDR": TOKENS["swarm"], "CUDA_VISIBLE_DEVICES": TOKENS["k3s"], "RANK": TOKENS["riot"],
                      "ACCELERATE_MIXED_PRECISION": TOKENS["xata"], "TORCHELASTIC_RUN_ID": TOKENS["logfire"],
                      "MASTER_PORT": TOKENS["woo"]}))
        add(Form(f"t42 show token {fmt}", "E2", ["show", TOKENS["mandrill"], "--format", fmt], secrets=SECRETS, codes=(2,),
                 error_line=True))
        add(Form(f"t42 plan --model token {fmt}", "E2", ["plan", "--model", TOKENS["ory"], "--format", fmt],
                 secrets=SECRETS, codes=(2,), error_line=True))
        drift = (TB + f"TypeError: SFTTrainer.__init__() missing 1 required positional argument: '{TOKENS['xata']}'\n")
        add(Form(f"t42 drift missing positional token {fmt}", "E2", ["diagnose", write(f"t42-e2-pos-{fmt}.log", drift),
                                                                     "--format", fmt, "--all"], secrets=SECRETS))
        name_error = (f"Traceback (most recent call last):\n  File \"/w/train.py\", line 4, in <module>\n"
                      f"    {TOKENS['logfire']}(model)\nNameError: name '{TOKENS['logfire']}' is not defined\n")
        add(Form(f"t42 drift NameError token {fmt}", "E2", ["diagnose", write(f"t42-e2-name-{fmt}.log", name_error),
                                                            "--format", fmt, "--all"], secrets=SECRETS))
        deprecation = (f"FutureWarning: `evaluation_strategy` is deprecated and will be removed in version 4.46 of "
                       f"Transformers. Use `{TOKENS['swarm']}` instead\n" + TB +
                       "TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'\n")
        add(Form(f"t42 drift deprecation names a token {fmt}", "E2", ["diagnose", write(f"t42-e2-dep-{fmt}.log", deprecation),
                                                                      "--format", fmt, "--all"], secrets=SECRETS))
        add(Form(f"t42 diagnose a log of tokens {fmt}", "E2", ["diagnose", write(f"t42-e2-{fmt}.log", TB + ERROR + " " +
                                                                                 " ".join(TOKENS.values()) + "\n"),
                                                             "--format", fmt, "--all"], secrets=SECRETS))
        for mode in ("secret-names-t42",):
            add(Form(f"t42 env NVML {mode} {fmt}", "E2", ["env", "--format", fmt], env={"FAKE_NVML": mode},
                     secrets=SECRETS, codes=(0, 1)))

    # ------------------------------------------------------------ R1/R2: limits, a deleted folder, signals
    add(Form("t42 ulimit -n 5: diagnose", "R1", ["diagnose"], codes=(0, 1, 2), error_line=True,
             shell=f"ulimit -n 5; @KB@ diagnose '{log}'; echo $?"))
    add(Form("t42 ulimit -f 0, output a file: list", "R1", ["list"], codes=(2,), error_line=True,
             shell=f"trap '' XFSZ; ulimit -f 0; @KB@ list >'{tmp}/t42-out-file'; echo $?"))
    gone = tmp / "t42-gone"
    add(Form("t42 working folder deleted: diagnose", "R2", ["diagnose"], codes=(0, 1, 2), error_line=True,
             shell=f"mkdir '{gone}' && cd '{gone}' && rmdir '{gone}' && @KB@ diagnose '{log}'; echo $?"))
    big = tmp / "t42-big.log"
    line = "step 1 loss 2.31 lr 2e-05 grad_norm 0.94 " * 4 + "\n"
    with big.open("w") as handle:
        handle.write(line * (8 * 1024 * 1024 // len(line)))
        handle.write(body)
    for sig, code in (("TERM", 143), ("HUP", 129)):
        add(Form(f"t42 SIG{sig} while reading", "R2", ["diagnose"], codes=(1, 2, code), timeout=60,
                 shell=f"set -m; (cat '{big}'; sleep 5) | @KB@ diagnose - & pid=$!; sleep 1; kill -{sig} $pid; wait $pid; "
                       f"echo $?"))

    # ------------------------------------------------------------ R3: line ends at the block's edge and not LF
    block = 1024 * 1024
    head = ("step 1 loss 2.31\r\n" * (block // 18 + 1))[: block - 1]
    cut = head + "\r\n" + body.replace("\n", "\r\n")  # the CR ends the first block, its LF starts the second
    path = write("t42-r3-crlf-cut.log", cut)
    add(Form("t42 line ends CRLF cut by the block", "R3", ["diagnose", path], codes=(0,), shows="KB0001", timeout=60))
    for name, sep in (("nel", "\x85"), ("line-separator", "\u2028"), ("form-feed", "\x0c"), ("vt", "\x0b")):
        path = write(f"t42-r3-{name}.log", body.replace("\n", sep))
        add(Form(f"t42 line ends {name}", "R3", ["diagnose", path], codes=(0, 1), error_line=True))

    # ------------------------------------------------------------ C1: encodings whose message must be right
    for name, data in (("utf-32-le-no-bom", body.encode("utf-32-le")), ("utf-32-be-no-bom", body.encode("utf-32-be")),
                       ("shift-jis", ("\u30a8\u30e9\u30fc: " + body).encode("shift_jis")),
                       ("ebcdic-cp500", body.encode("cp500"))):
        path = write(f"t42-c1-{name}.log", data)
        add(Form(f"t42 encodings {name}", "C1", ["diagnose", path], codes=(0, 1, 2), error_line=True))

    # ------------------------------------------------------------ L1: numbers past every bound
    for value in ("0", "-0", "1" + "0" * 5000, "-1", "1e9", "9" * 20, "0x50", "\u0668\u0660", "80.5"):
        for flag in ("--width", "--limit"):
            add(Form(f"t42 diagnose {flag} {value[:12]!r}", "L1", ["diagnose", log, flag, value], codes=(0, 1, 2),
                     error_line=True))
    for var in ("LOCAL_WORLD_SIZE", "OMP_NUM_THREADS", "NPROC_PER_NODE", "GROUP_RANK", "LOCAL_RANK"):
        add(Form(f"t42 env {var} of 5,000 digits", "L1", ["env", "--format", "json"], env={var: "9" * 5000}, codes=(0, 1)))
    add(Form("t42 env --nproc of 5,000 digits", "L1", ["env", "--nproc", "9" * 5000], codes=(2,), error_line=True))
    add(Form("t42 env --nproc -3", "L1", ["env", "--nproc", "-3"], codes=(2,), error_line=True))

    # ------------------------------------------------------------ N1: NVML modes of turn 42
    for mode in ("count-ten-million", "procs-million-t42", "name-attributeerror", "name-lookuperror", "escapes-t42",
                 "name-bytes-escapes-t42"):
        for args in (["env", "--format", "json"], ["env"], ["diagnose", "--env", log]):
            add(Form(f"t42 NVML {mode}: {' '.join(args)}", "N1", args, env={"FAKE_NVML": mode}, codes=(0, 1), timeout=60))

    # ------------------------------------------------------------ K1-K3: plan inputs of the wrong kind
    specials = {"bool-layers": {**base, "num_hidden_layers": True}, "bool-hidden": {**base, "hidden_size": True},
                "string-vocab": {**base, "vocab_size": "1e5"}, "kv-heads-zero": {**base, "num_key_value_heads": 0},
                "null-intermediate": {**base, "intermediate_size": None}, "head-dim-negative": {**base, "head_dim": -128},
                "tie-word-embeddings-string": {**base, "tie_word_embeddings": "no"},
                "experts-bool": {**base, "num_local_experts": True, "num_experts_per_tok": 2},
                "max-position-inf-string": {**base, "max_position_embeddings": "Infinity"}}
    for name, cfg in specials.items():
        path = write(f"t42-k1-{name}.json", json.dumps(cfg))
        add(Form(f"t42 plan --config {name}", "K1", ["plan", "--config", path, "--gpu-gib", "24"], codes=(0, 1, 2),
                 error_line=True))
    for name, value in (("layer -1", '{"model.layers.-1": 0, "": 1}'), ("layer 10**12", '{"model.layers.1000000000000": 1, "": 0}'),
                        ("gpu bool", '{"": true}'), ("gpu float", '{"": 0.5}'), ("disk for all", '{"": "disk"}')):
        add(Form(f"t42 plan --device-map {name}", "K3", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map",
                                                         value], codes=(0, 1, 2), error_line=True))
    add(Form("t42 plan --lora-r 10**6", "K3", ["plan", "--model", model, "--lora-r", "1000000", "--gpu-gib", "8"],
             codes=(0, 1, 2), error_line=True, timeout=30))

    # ------------------------------------------------------------ P1/P2: the cache at odd places
    loop = tmp / "t42-loop"
    os.symlink(loop, loop)
    for name, env in (("a symlink loop", {"XDG_CACHE_HOME": str(loop)}), ("/proc/self", {"XDG_CACHE_HOME": "/proc/self"}),
                      ("a newline at the end", {"XDG_CACHE_HOME": f"{tmp}/t42-nl\n"}),
                      ("KB_CACHE_DIR a loop", {"KB_CACHE_DIR": str(loop)})):
        for args in (["list"], ["diagnose", log]):
            add(Form(f"t42 cache {name}: {args[0]}", "P2", args, env=env, codes=(0,), timeout=60))
    add(Form("t42 cache: no folder made at a path ending in a newline", "P2", ["list"], codes=(0,),
             shell=f"XDG_CACHE_HOME=$'{tmp}/t42-nl2\\n' @KB@ list >/dev/null 2>&1; test -e $'{tmp}/t42-nl2\\n' && echo 1 || echo 0"))
    _ = PY
    return forms
