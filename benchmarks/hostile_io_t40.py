"""Turn 40's held-out red team for benchmarks/hostile_io.py (issue 26): forms of each class that the first driver and
turns 37-39 did not have. Each name starts with ``t40``, so ``--only t40`` runs just these.

E2 turn 40's token shapes (Modal as-, Contentful CFPAT-, Honeycomb hcaik_, Infisical st., Baidu bce-v3/ALTAK-,
LangSmith ls__, Neon napi_, LlamaCloud llx-) where kb prints: launch variables, `kb env --config` values (YAML, JSON,
a notebook's JSON), `kb diagnose --env`, `kb plan --model`, `kb show`/`kb explain` arguments, an unknown command, a
missing file, config or device map NAMED by a token (the error echoes the path), a log of tokens, kb's own
/proc/self/environ and /proc/self/cmdline as input (a token in kb's environment and argv); N1 a case id that is a path
(`kb show ../../etc/passwd`, an absolute path, `.`, a case folder's file); K1 a YAML alias bomb (billion laughs) as
`kb env --config` and `kb plan --from`; R2 the input file truncated while kb reads it (logrotate's copytruncate) and a
file that grows while read; E1 a token and a control sequence in kb's argv[0]-like places: the `--format` choice and
`kb list`'s arguments with C1 and OSC.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hostile_io import ERROR, TB, Form, config_forms

# fake tokens of turn 40's shapes (made up here)
TOKENS = {"modal": "as-Zq8Wm2Lp5Rt9Xv3Bn7Kc1H", "contentful": "CFPAT-Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0Xc5Vb7Nm3Qw1",
          "honeycomb": "hcaik_9f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e1b",
          "infisical": "st.a1b2c3d4e5f60718a1b2c3d4.a1b2c3d4e5f60718a1b2c3d4e5f60718.a1b2c3d4e5f60718a1b2c3d4e5f60718",
          "qianfan": "bce-v3/ALTAK-K7M2Q9X4B8N3V6C1Z5L0P/9f2c4a7e1b3d5f609f2c4a7e1b3d5f609f2c4a7e",
          "langsmith": "ls__a1b2c3d4e5f60718a1b2c3d4e5f60718", "neon": "napi_k7m2q9x4b8n3v6c1z5l0p7r2t9w4y8h3j6f1d5k7m2q9x4b8n3v6c1z5l0p7",
          "llamacloud": "llx-Mq2zdYHZX4qUxXPruSnpIrDOsruBwaozIjsVCm4c455mtdIK"}
SECRETS = ("Zq8Wm2Lp5Rt9Xv3Bn7Kc", "Qw7Er5Ty3Ui1Op9As8Df", "9f2c4a7e1b3d5f60", "a1b2c3d4e5f60718", "K7M2Q9X4B8N3V6C1Z5L0",
           "k7m2q9x4b8n3v6c1z5l0", "Mq2zdYHZX4qUxXPruSnp")
EVIL = "\x1b]52;c;ZXZpbA==\x07\x9b2J\u202e"


def turn40_forms(tmp: Path, write: Callable[[str, bytes | str], str]) -> list[Form]:
    forms: list[Form] = []
    add = forms.append
    body = TB + ERROR + "\n"
    log = write("t40.log", body)
    model = "qwen2.5-0.5b"

    # ------------------------------------------------------------ E2: turn 40's token shapes where kb prints
    values = {"hub_token": TOKENS["modal"], "run_name": f"run {TOKENS['contentful']}",
              "report_to": ["wandb", TOKENS["honeycomb"]], "hub_model_id": TOKENS["qianfan"],
              "optim": f"adamw_torch {TOKENS['infisical']}"}
    notebook = {"cells": [{"cell_type": "code", "source": [f"os.environ['X'] = '{TOKENS['langsmith']}'\n"],
                           "outputs": [{"output_type": "stream", "name": "stderr", "text": [f"{TOKENS['neon']}\n"]}]}]}
    configs = [(name, f"t40-e2-config.{name}", data) for name, data in (
        ("json", json.dumps(values)), ("yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items())),
        ("ipynb", json.dumps(notebook)))]
    forms.extend(config_forms("t40", configs, write, SECRETS, model))
    for fmt in ("text", "json"):
        add(Form(f"t40 env launch variables hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"MASTER_ADDR": TOKENS["modal"], "CUDA_VISIBLE_DEVICES": TOKENS["contentful"],
                      "RANK": TOKENS["honeycomb"], "ACCELERATE_MIXED_PRECISION": TOKENS["qianfan"],
                      "TORCHELASTIC_RUN_ID": TOKENS["infisical"], "MASTER_PORT": TOKENS["neon"]}))
        add(Form(f"t40 diagnose --env launch variables hold tokens {fmt}", "E2", ["diagnose", "--env", log, "--format",
                                                                                 fmt], secrets=SECRETS,
                 env={"MASTER_ADDR": TOKENS["langsmith"], "ACCELERATE_MIXED_PRECISION": TOKENS["llamacloud"]}))
        add(Form(f"t40 plan --model token {fmt}", "E2", ["plan", "--model", TOKENS["qianfan"], "--format", fmt],
                 secrets=SECRETS, codes=(2,), error_line=True))
        for command in ("show", "explain"):
            add(Form(f"t40 {command} token {fmt}", "E2", [command, TOKENS["infisical"], "--format", fmt],
                     secrets=SECRETS, codes=(2,), error_line=True))
        add(Form(f"t40 diagnose a log of tokens {fmt}", "E2", ["diagnose", write(f"t40-e2-{fmt}.log", TB + ERROR + " " +
                                                                                 " ".join(TOKENS.values()) + "\n"),
                                                             "--format", fmt, "--all"], secrets=SECRETS))
        # a token pasted where a path goes: the "no such file" message echoes the path
        for label, args in (("diagnose", ["diagnose", TOKENS["modal"]]),
                            ("diagnose under a folder", ["diagnose", f"/tmp/{TOKENS['neon']}/train.log"]),
                            ("env --config", ["env", "--config", TOKENS["contentful"]]),
                            ("plan --from", ["plan", "--model", model, "--from", TOKENS["honeycomb"]]),
                            ("plan --device-map", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map",
                                                   f"{TOKENS['langsmith']}.json"])):
            add(Form(f"t40 missing path named by a token: {label} {fmt}", "E2", [*args, "--format", fmt],
                     secrets=SECRETS, codes=(2,), error_line=True))
        # kb's own environment and argv as its input: the file holds every variable, NUL-separated
        add(Form(f"t40 diagnose /proc/self/environ {fmt}", "E2", ["diagnose", "/proc/self/environ", "--format", fmt,
                                                                 "--all"], secrets=SECRETS, error_line=True,
                 env={"HF_TOKEN": "hf_" + TOKENS["llamacloud"][4:], "UPLOAD": TOKENS["modal"],
                      "DB_PASSWORD": "Qw7Er5Ty3Ui1Op9As8Df6G"}))
        add(Form(f"t40 diagnose /proc/self/cmdline {fmt}", "E2", ["diagnose", "/proc/self/cmdline", "--format", fmt,
                                                                 "--all", "--", TOKENS["contentful"]],
                 secrets=SECRETS, codes=(0, 1, 2), error_line=True))
    add(Form("t40 unknown command token", "E2", [TOKENS["honeycomb"]], secrets=SECRETS, codes=(2,), error_line=True))
    add(Form("t40 list argument token", "E2", ["list", TOKENS["neon"]], secrets=SECRETS, codes=(2,), error_line=True))

    # ------------------------------------------------------------ E1: control sequences in choices and list's args
    for label, args in (("--format", ["diagnose", log, "--format", f"json{EVIL}"]),
                        ("list arg", ["list", f"x{EVIL}"]), ("list --family", ["list", "--family", f"x{EVIL}"]),
                        ("explain", ["explain", f"KB0001{EVIL}"]), ("plan --trainer", ["plan", "--model", model,
                                                                                       "--trainer", f"sft{EVIL}"])):
        add(Form(f"t40 escapes in {label}", "E1", args, codes=(2,), error_line=True))

    # ------------------------------------------------------------ N1: a case id that is a path
    for label, case in (("../../etc/passwd", "../../../../../../etc/passwd"), ("absolute", "/etc/passwd"),
                        ("dot", "."), ("dotdot", ".."), ("case file", "KB0001/case.md"),
                        ("case folder parent", "KB0001/../KB0002"), ("family path", "families/../README"),
                        ("glob", "KB*"), ("empty", "")):
        for command in ("show", "explain"):
            add(Form(f"t40 {command} a path as the id: {label}", "N1", [command, case], codes=(0, 2), error_line=True,
                     secrets=("root:x:0:0",)))

    # ------------------------------------------------------------ K1: a YAML alias bomb
    laughs = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n"
    for i, name in enumerate("bcdefghi"):
        prev = "abcdefghi"[i]
        laughs += f"{name}: &{name} [" + ",".join([f"*{prev}"] * 9) + "]\n"
    laughs += "hub_model_id: *i\nper_device_train_batch_size: 1\n"
    bomb = write("t40-k1-laughs.yaml", laughs)
    for args in (["env", "--config", bomb], ["env", "--config", bomb, "--format", "json"],
                 ["plan", "--model", model, "--from", bomb], ["plan", "--model", model, "--from", bomb, "--format",
                                                               "json"]):
        add(Form(f"t40 yaml alias bomb {' '.join(args[:1] + args[-2:])}", "K1", args, codes=(0, 1, 2), error_line=True,
                 timeout=60))

    # ------------------------------------------------------------ R2: the input file changes while kb reads it
    big = tmp / "t40-rotated.log"
    line = "step 1 loss 2.31 lr 2e-05 grad_norm 0.94 " * 4 + "\n"
    with big.open("w") as handle:
        handle.write(line * (64 * 1024 * 1024 // len(line)))
        handle.write(body)
    for fmt in ("text", "json"):
        add(Form(f"t40 input truncated while read (copytruncate) {fmt}", "R2", ["diagnose", str(big)], codes=(0, 1, 2),
                 error_line=True, timeout=120,
                 shell=f"cp '{big}' '{big}.{fmt}'; @KB@ diagnose '{big}.{fmt}' --format {fmt} & pid=$!; sleep 0.4; "
                       f": > '{big}.{fmt}'; wait $pid; echo $?"))
        add(Form(f"t40 input growing while read {fmt}", "R2", ["diagnose", str(big)], codes=(0, 1), timeout=120,
                 shell=f"cp '{big}' '{big}.g{fmt}'; ( for i in $(seq 200); do echo 'step {fmt} loss 2.0' >> "
                       f"'{big}.g{fmt}'; done ) & @KB@ diagnose '{big}.g{fmt}' --format {fmt}; rc=$?; wait; echo $rc"))
    return forms
