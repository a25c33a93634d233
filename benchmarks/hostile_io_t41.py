"""Turn 41's held-out red team for benchmarks/hostile_io.py (issue 26): forms of each class that the first driver and
turns 37-40 did not have. Each name starts with ``t41``, so ``--only t41`` runs just these.

E1 terminal sequences not tried before (requests the terminal answers: DSR, a title report, a font or termcap query;
DECALN, scrollback erase, bracketed paste, mouse and synchronised modes, SS2/SS3, sixel, iTerm2's file transfer, a
hyperlink with parameters, a 5,000-digit parameter, 10,000 parameters, colon sub-parameters, CAN/SUB inside a
sequence, an OSC that the input's end or a lone ESC ends, noncharacters) in a log, `kb show`'s argument and a YAML
config; escapes a container runtime's record or a forum paste ENCODES (a Docker json-file record's \\u001b and \\u009b,
a CRI record, HTML's &#27; and a literal \\x1b in a flattened traceback); E2 turn 41's token shapes where kb prints (config
values through the shared helper, launch variables, `kb show`, an api-drift error's name and path, `--all` and JSON);
R1/R2 standard streams in other states (standard error closed, standard output opened read-only, standard input
opened write-only or a directory, a non-blocking standard input and output, SIGINT while reading); R3 CR-only input of
10 MB without a line end, a 32 MB line, a million empty lines, 8 MB of ESC [; C1 a character cut by the 1 MiB block
(UTF-8, UTF-16 surrogate pairs), a UTF-16 chunk inside UTF-8, a BOM inside the text; L1 numbers Python reads and a
user would not mean (1_000, Arabic-Indic digits, YAML 1.1's 1:20); K1 a config folder, JSON with comments and trailing
commas, a 1 MB model_type; N1 `kb show` ids that look like ids; K2 a knowledge folder planted with escapes.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from hostile_io import ERROR, PY, TB, Form, config_forms

# fake tokens of turn 41's shapes (made up here)
TOKENS = {"hf-oauth": "hf_oauth_Qw7Er5Ty3Ui1Op9As8Df6Gh4Jk2Lz0XcVb", "hubspot": "pat-na1-9f2c4a7e-1b3d-5f60-9f2c-4a7e1b3d5f60",
          "plaid": "access-production-a1b2c3d4-e5f6-0718-a1b2-c3d4e5f60718",
          "braintree": "access_token$production$k7m2q9x4b8n3v6c1$9f2c4a7e1b3d5f609f2c4a7e1b3d5f60",
          "statsig": "secret-Mq2zdYHZX4qUxXPruSnpIrDOsruBwaozIjsVCm4c455", "nuget": "oy2k7m2q9x4b8n3v6c1z5l0p7r2t9w4y8h3j6f1d5k7m2q",
          "akamai": "akab-k7m2q9x4b8n3v6c1-z5l0p7r2t9w4y8h3", "vercel": "vercel_blob_rw_Zq8Wm2Lp5Rt9Xv3B_n7Kc1HQw7Er5Ty3Ui1Op9As8Df6Gh4Jk2L"}
SECRETS = ("Qw7Er5Ty3Ui1Op9As8Df", "9f2c4a7e-1b3d-5f60", "a1b2c3d4-e5f6-0718", "9f2c4a7e1b3d5f609f2c", "Mq2zdYHZX4qUxXPruSnp",
           "k7m2q9x4b8n3v6c1z5l0", "k7m2q9x4b8n3v6c1-z5l0", "Zq8Wm2Lp5Rt9Xv3B")

ESCAPES = {
    "dsr-6n": "\x1b[6n", "title-report-21t": "\x1b[21t", "osc50-font-query": "\x1b]50;?\x07",
    "dcs-termcap-query": "\x1bP+q544e\x1b\\", "decaln": "\x1b#8", "clear-scrollback": "\x1b[3J",
    "bracketed-paste": "\x1b[200~rm -rf ~\x1b[201~", "mouse-tracking": "\x1b[?1000h", "sync-mode": "\x1b[?2026h",
    "ss2-ss3": "\x1bN\x1bO", "ss3-c1": "\x8f", "huge-param": "\x1b[" + "9" * 5000 + "m",
    "many-params": "\x1b[" + ";".join(["1"] * 10000) + "m", "colon-subparams": "\x1b[38:2::255:0:0m",
    "osc-lone-esc-end": "\x1b]0;t\x1b", "esc-newline": "\x1b\n", "csi-with-bs": "\x1b[3\x081m",
    "can-sub": "\x1b[3\x18 \x1b]0;\x1a", "osc-unterminated": "\x1b]0;" + "x" * 200, "esc-space-f": "\x1b F",
    "vt52-cursor": "\x1bY  ", "decsc-decrc": "\x1b7\x1b8", "kitty-keyboard": "\x1b[>1u", "sixel": "\x1bPq#0;2;0;0;0#0~~\x1b\\",
    "iterm-file": "\x1b]1337;File=inline=1:AAAA\x07", "osc8-params": "\x1b]8;id=x;file:///etc/passwd\x1b\\click\x1b]8;;\x1b\\",
    "noncharacters": "\ufffe\uffff\U0010ffff", "vt-nel": "\x0b\x85", "rlm-in-number": "1\u200f2", "zwnbsp-mid": "a\ufeffb",
    "pdi-alone": "\u2069", "c1-utf8-osc52": "\u009d52;c;ZXZpbA==\u009c",
}


def turn41_forms(tmp: Path, write: Callable[[str, bytes | str], str]) -> list[Form]:
    forms: list[Form] = []
    add = forms.append
    body = TB + ERROR + "\n"
    log = write("t41.log", body)
    model = "qwen2.5-0.5b"
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}

    # ------------------------------------------------------------ E1: sequences not tried before, where kb prints
    for key, seq in ESCAPES.items():
        path = write(f"t41-e1-{key}.log", f"{seq}\n{TB}{ERROR} {seq}\nValueError: {seq}bad{seq}\n")
        add(Form(f"t41 diagnose text {key}", "E1", ["diagnose", path]))
        add(Form(f"t41 diagnose json --all {key}", "E1", ["diagnose", path, "--format", "json", "--all"]))
        # (an id followed by whitespace only, VT and NEL included, is the id: str.strip, as for "4" and a VT in plan's numbers)
        add(Form(f"t41 show argument {key}", "E1", ["show", f"KB0001{seq}"], codes=(0, 2) if seq.isspace() else (2,),
                 error_line=True))
        yaml = write(f"t41-e1-{key}.yaml", "optim: " + json.dumps(seq) + "\nrun_name: " + json.dumps(f"x{seq}") + "\n")
        add(Form(f"t41 env --config yaml {key}", "E1", ["env", "--config", yaml], error_line=True))
    # escapes that an encoding carries into kb: a Docker json-file record, a CRI record, a forum paste flattened
    encoded = {
        "docker-record": '{"log":"\\u001b]52;c;ZXZpbA==\\u0007RuntimeError: expected mat1 and mat2 to have the same dtype,'
                         ' but got: double != float \\u009b2J\\u001b[6n\\n","stream":"stderr","time":"2026-11-27T05:00:01Z"}\n',
        "cri-record": "2026-11-27T05:00:01.1Z stderr F \x1b]0;pwned\x07" + ERROR + " \x1b[21t\n",
        "html-entities": "<pre>Traceback (most recent call last):\n  File &quot;/x/t.py&quot;, line 3, in f\n"
                         "&#27;]52;c;ZXZpbA==&#7;" + ERROR + " &#x1b;[2J &#155;6n</pre>\n",
        "flattened-x1b": "Traceback (most recent call last):\\n  File \"/x/t.py\", line 3, in f\\n    x = a @ b\\n"
                         + ERROR + " \\x1b]0;pwned\\x07 \\u001b[2J \\033[6n\\n",
        "json-log-escapes": json.dumps({"level": "error", "message": TB + ERROR + " \x1b]0;pwned\x07\x9b2J"}) + "\n",
    }
    for key, text in encoded.items():
        path = write(f"t41-e1-enc-{key}.log", text)
        for fmt in ("text", "json"):
            add(Form(f"t41 escapes encoded in a {key} {fmt}", "E1", ["diagnose", path, "--format", fmt, "--all"]))

    # ------------------------------------------------------------ E2: turn 41's token shapes where kb prints
    values = {"hub_token": TOKENS["hf-oauth"], "run_name": f"run {TOKENS['hubspot']}", "report_to": ["wandb", TOKENS["plaid"]],
              "hub_model_id": TOKENS["braintree"], "optim": f"adamw_torch {TOKENS['statsig']}",
              "output_dir": f"/runs/{TOKENS['nuget']}", "logging_dir": TOKENS["akamai"], "push_to_hub_token": TOKENS["vercel"]}
    configs = [("json", "t41-e2-config.json", json.dumps(values)),
               ("yaml", "t41-e2-config.yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in values.items())),
               ("yaml-plain", "t41-e2-config-plain.yaml", "".join(f"{k}: {v if isinstance(v, str) else json.dumps(v)}\n"
                                                                    for k, v in values.items()))]
    forms.extend(config_forms("t41", configs, write, SECRETS, model))
    for fmt in ("text", "json"):
        add(Form(f"t41 env launch variables hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=SECRETS,
                 env={"MASTER_ADDR": TOKENS["hf-oauth"], "CUDA_VISIBLE_DEVICES": TOKENS["hubspot"], "RANK": TOKENS["plaid"],
                      "ACCELERATE_MIXED_PRECISION": TOKENS["braintree"], "TORCHELASTIC_RUN_ID": TOKENS["statsig"],
                      "MASTER_PORT": TOKENS["nuget"]}))
        add(Form(f"t41 show token {fmt}", "E2", ["show", TOKENS["akamai"], "--format", fmt], secrets=SECRETS, codes=(2,),
                 error_line=True))
        add(Form(f"t41 plan --model token {fmt}", "E2", ["plan", "--model", TOKENS["vercel"], "--format", fmt],
                 secrets=SECRETS, codes=(2,), error_line=True))
        # the api-drift section: a name and a path that hold a token
        drift = (f"Traceback (most recent call last):\n  File \"/home/u/{TOKENS['nuget']}/train.py\", line 3, in <module>\n"
                 f"    from transformers import {TOKENS['statsig'].replace('-', '_')}\n"
                 f"ImportError: cannot import name '{TOKENS['statsig'].replace('-', '_')}' from 'transformers' "
                 f"(/home/u/{TOKENS['hubspot']}/site-packages/transformers/__init__.py)\n")
        add(Form(f"t41 drift section holds tokens {fmt}", "E2", ["diagnose", write(f"t41-e2-drift-{fmt}.log", drift),
                                                                 "--format", fmt, "--all"], secrets=SECRETS))
        kwarg = (TB + f"TypeError: TrainingArguments.__init__() got an unexpected keyword argument 'evaluation_strategy'"
                 f" (hub_token={TOKENS['hf-oauth']}, run_name={TOKENS['plaid']})\n")
        add(Form(f"t41 drift kwarg beside tokens {fmt}", "E2", ["diagnose", write(f"t41-e2-kwarg-{fmt}.log", kwarg),
                                                                "--format", fmt, "--all"], secrets=SECRETS))
        versions = ("transformers==4.46.0\npeft @ git+https://" + TOKENS["braintree"] + "@github.com/huggingface/peft@main\n"
                    f"accelerate==1.0.0\n{TB}{ERROR}\n")
        add(Form(f"t41 versions section holds a token {fmt}", "E2", ["diagnose", write(f"t41-e2-versions-{fmt}.log",
                                                                                      versions), "--format", fmt,
                                                                     "--all"], secrets=SECRETS))
        add(Form(f"t41 diagnose a log of tokens {fmt}", "E2", ["diagnose", write(f"t41-e2-{fmt}.log", TB + ERROR + " " +
                                                                                 " ".join(TOKENS.values()) + "\n"),
                                                             "--format", fmt, "--all"], secrets=SECRETS))

    # ------------------------------------------------------------ R1/R2: standard streams in other states
    small = log
    add(Form("t41 stderr closed: diagnose a missing file", "R1", ["diagnose"], codes=(2,),
             shell=f"@KB@ diagnose '{tmp}/t41-none.log' 2>&-; echo $?"))
    add(Form("t41 stderr closed: diagnose", "R1", ["diagnose"], codes=(0, 1), shell=f"@KB@ diagnose '{small}' 2>&-; echo $?"))
    add(Form("t41 stdout and stderr closed: list", "R1", ["list"], codes=(2,), shell="@KB@ list >&- 2>&-; echo $?"))
    for args in (["list"], ["diagnose", small], ["env", "--format", "json"], ["show", "KB0001"], ["check"]):
        quoted = " ".join(f"'{a}'" for a in args)
        add(Form(f"t41 stdout opened read-only: {' '.join(args[:1])}", "R1", args, codes=(2,), error_line=True,
                 says="cannot write the output", shell=f"@KB@ {quoted} 1</dev/null; echo $?",
                 timeout=300 if args == ["check"] else 60))
    add(Form("t41 stdin opened write-only: diagnose -", "R2", ["diagnose", "-"], codes=(2,), error_line=True,
             shell=f"@KB@ diagnose - 0>'{tmp}/t41-stdin-w'; echo $?"))
    # (Python's own start-up refuses a directory as standard input, "Fatal Python error: init_sys_streams", before any
    # of kb runs: exit 1 and the interpreter's lines; what is asked here is that it ends, and without a kb traceback)
    add(Form("t41 stdin a directory: diagnose -", "R2", ["diagnose", "-"], codes=(1, 2),
             shell="@KB@ diagnose - < /; echo $?"))
    nonblock_in = ("import fcntl, os, sys; fcntl.fcntl(0, fcntl.F_SETFL, fcntl.fcntl(0, fcntl.F_GETFL) | os.O_NONBLOCK); "
                   "os.execv(sys.executable, [sys.executable, '-m', 'kb', 'diagnose', '-'])")
    add(Form("t41 stdin non-blocking, slow writer: diagnose -", "R2", ["diagnose", "-"], codes=(0, 1, 2), error_line=True,
             shell=f"(sleep 1; cat '{small}') | '{PY}' -c \"{nonblock_in}\"; echo $?"))
    nonblock_out = ("import fcntl, os, sys; fcntl.fcntl(1, fcntl.F_SETFL, fcntl.fcntl(1, fcntl.F_GETFL) | os.O_NONBLOCK); "
                    "os.execv(sys.executable, [sys.executable, '-m', 'kb', 'list', '--format', 'json'])")
    add(Form("t41 stdout non-blocking, slow reader: list", "R1", ["list"], codes=(0, 2), error_line=True,
             shell=f"'{PY}' -c \"{nonblock_out}\" | (sleep 2; cat >/dev/null); echo ${{PIPESTATUS[0]}}"))
    big = tmp / "t41-big.log"
    line = "step 1 loss 2.31 lr 2e-05 grad_norm 0.94 " * 4 + "\n"
    with big.open("w") as handle:
        handle.write(line * (48 * 1024 * 1024 // len(line)))
        handle.write(body)
    add(Form("t41 SIGINT while reading", "R2", ["diagnose", str(big)], codes=(1, 2, 130), timeout=120,
             # (kb waits on a pipe that stays open, so the signal comes while it reads, whatever the machine's speed)
             shell=f"set -m; (cat '{big}'; sleep 5) | @KB@ diagnose - & pid=$!; sleep 1; kill -INT $pid; wait $pid; echo $?"))
    for args in (["check"], ["diagnose", "--env", small], ["env", "--format", "json"], ["show", "KB0001", "--format", "json"]):
        quoted = " ".join(f"'{a}'" for a in args)
        add(Form(f"t41 SIGPIPE: kb {' '.join(args)} | head -c 1", "R1", args, codes=(0,), timeout=300,
                 shell=f"@KB@ {quoted} 2>'{tmp}/t41-pipe-err' | head -c 1 >/dev/null; rc=${{PIPESTATUS[0]}}; "
                       f"cat '{tmp}/t41-pipe-err' >&2; echo $rc"))

    # ------------------------------------------------------------ R3: CR-only and very long lines
    lines = {"cr-only-10mb": "".join(f"\r{i % 100}%|{'#' * (i % 50)}" for i in range(400_000)) + "\r" + body.replace("\n", "\r"),
             "one-32mb-line": "x" * (32 * 1024 * 1024) + "\n" + body, "million-empty-lines": "\n" * 1_000_000 + body,
             "esc-bracket-8mb": "\x1b[" * (4 * 1024 * 1024) + "\n" + body, "html-entity-8mb": "&#27;" * (1600 * 1024) + "\n" + body,
             "backslash-n-8mb": "\\n" * (4 * 1024 * 1024) + "\n" + body, "lfcr-lines": body.replace("\n", "\n\r"),
             "cr-lf-mixed-per-line": "a\r\nb\rc\nd\r\r\n" * 10000 + body}
    for key, text in lines.items():
        path = write(f"t41-r3-{key}.log", text)
        # (8 MB of ESC [ is said to be binary data: one line, exit 2)
        add(Form(f"t41 line ends {key}", "R3", ["diagnose", path], codes=(0, 1, 2) if key.startswith("esc") else (0, 1),
                 error_line=True, timeout=120))
    add(Form("t41 line ends cr-only-10mb answered", "R3", ["diagnose", str(tmp / "t41-r3-cr-only-10mb.log")], codes=(0,),
             timeout=120, shows="KB0001"))

    # ------------------------------------------------------------ C1: characters cut by a block, encodings mixed
    block = 1024 * 1024
    filler = ("step 1 loss 2.31\n" * (block // 17 + 1)).encode()
    emoji_line = ("RuntimeError: \U0001f600 expected mat1 and mat2 to have the same dtype, but got: double != float\n")
    for name, encoding, bom, shifts in (("utf-8", "utf-8", b"", (1, 2, 3)), ("utf-16-le", "utf-16-le", b"\xff\xfe", (2,)),
                                        ("utf-16-be", "utf-16-be", b"\xfe\xff", (2,))):
        unit = len("a".encode(encoding))
        head = bom + ("step 1 loss 2.31\n" * (block // (17 * unit) + 1)).encode(encoding)
        tail = (TB + emoji_line).encode(encoding)
        at = tail.index("\U0001f600".encode(encoding))
        for shift in shifts:  # the second block's end falls ``shift`` bytes into the emoji (UTF-16: between its surrogates)
            size = 2 * block - shift - at - len(head)  # the padding line's bytes, its line end included
            data = head + ("a" * (size // unit - 1) + "\n").encode(encoding) + tail
            assert data.index("\U0001f600".encode(encoding), len(head)) == 2 * block - shift
            path = write(f"t41-c1-{name}-{shift}.log", data)
            # (UTF-16 is refused in one line, exit 2: "save it as UTF-8"; UTF-8 is read, the emoji whole)
            add(Form(f"t41 a character cut by the block {name} +{shift}", "C1", ["diagnose", path, "--format", "json"],
                     codes=(0, 1) if unit == 1 else (2,), error_line=True, timeout=60))
    mixed = {"utf-16-chunk-in-utf-8": filler[:5000] + (TB + ERROR + "\n").encode("utf-16-le") + b"step 2\n",
             "bom-inside": filler[:5000] + "\ufeff".encode() + (TB + ERROR + "\n").encode(),
             "cp1252-inside-utf-8": ("caf\u00e9 \u2014 ok\n").encode() + "\u201cquoted\u201d\n".encode("cp1252") + body.encode(),
             "utf-16-cr-only": (TB + ERROR + "\n").replace("\n", "\r").encode("utf-16"),
             "utf-16-lone-surrogates": (TB + ERROR + " ").encode("utf-16-le") + b"\x00\xd8\x41\x00\x00\xdc\n\x00"}
    for name, data in mixed.items():
        path = write(f"t41-c1-{name}.log", data)
        for fmt in ("text", "json"):
            add(Form(f"t41 encodings {name} {fmt}", "C1", ["diagnose", path, "--format", fmt],
                     codes=(2,) if name.startswith("utf-16") and "chunk" not in name else (0, 1), error_line=True))

    # ------------------------------------------------------------ L1: numbers Python reads that a user would not mean
    for value in ("1_000", "\u0664", "\u0664\u0660", "\uff18", "+4", "4.0", "0x10", "1e3", "\u00b2"):
        for flag in ("--batch", "--seq", "--gpu-gib", "--gpus"):
            add(Form(f"t41 plan {flag} {value!r}", "L1", ["plan", "--model", model, flag, value,
                                                           *(["--gpu-gib", "8"] if flag != "--gpu-gib" else [])],
                     codes=(0, 1, 2), error_line=True))
        for var in ("WORLD_SIZE", "RANK", "COLUMNS", "KB_WIDTH", "CUDA_VISIBLE_DEVICES"):
            add(Form(f"t41 env {var}={value!r}", "L1", ["env", "--format", "json"], env={var: value}, codes=(0, 1)))
    yaml_numbers = {"sexagesimal": "per_device_train_batch_size: 1:20\n", "octal-0o": "per_device_train_batch_size: 0o17\n",
                    "binary": "per_device_train_batch_size: 0b1010\n", "underscores": "max_seq_length: 1_000_000_000_000\n",
                    "plus-inf": "gradient_accumulation_steps: +.inf\n", "hex-huge": "max_seq_length: 0x" + "f" * 400 + "\n",
                    "json-exp-huge": '{"max_seq_length": 1e999999999}', "json-neg-exp": '{"per_device_train_batch_size": 1e-999999999}'}
    for name, text in yaml_numbers.items():
        path = write(f"t41-l1-{name}.{'json' if text.startswith('{') else 'yaml'}", text)
        add(Form(f"t41 plan --from numbers {name}", "L1", ["plan", "--from", path, "--model", model], codes=(0, 1, 2),
                 error_line=True))
        add(Form(f"t41 env --config numbers {name}", "L1", ["env", "--config", path], codes=(0, 1, 2), error_line=True))

    # ------------------------------------------------------------ K1: kb plan inputs
    folder = tmp / "t41-model-folder"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({**base, "model_type": "llama\x1b]0;t\x07"}))
    specials = {"jsonc": '{\n  // a comment\n  "model_type": "llama", "hidden_size": 64,\n}\n',
                "trailing-comma": json.dumps(base)[:-1] + ",}", "model-type-1mb": json.dumps({**base, "model_type": "l" * 1_000_000}),
                "architectures-100k": json.dumps({**base, "architectures": ["LlamaForCausalLM"] * 100_000}),
                "text-config-list": json.dumps({**base, "text_config": [base]}),
                "rope-factor-huge": json.dumps({**base, "rope_scaling": {"type": "linear", "factor": 1e308}}),
                "load-in-4bit-yes": json.dumps({**base, "quantization_config": {"load_in_4bit": "yes", "quant_method": "bitsandbytes"}}),
                "dtype-unknown": json.dumps({**base, "torch_dtype": "float8_e4m3fn"}),
                "layers-string": json.dumps({**base, "num_hidden_layers": "32"}),
                "vocab-2-64": json.dumps({**base, "vocab_size": 2**64}), "hidden-float": json.dumps({**base, "hidden_size": 4096.0000001})}
    for name, text in specials.items():
        path = write(f"t41-k1-{name}.json", text)
        add(Form(f"t41 plan --config {name}", "K1", ["plan", "--config", path, "--gpu-gib", "24"], codes=(0, 1, 2),
                 error_line=True, timeout=60))
    for args in (["plan", "--config", str(folder)], ["plan", "--model", str(folder)], ["plan", "--from", str(folder),
                                                                                          "--model", model]):
        add(Form(f"t41 plan a model folder: {' '.join(args[:2])}", "K1", args, codes=(0, 1, 2), error_line=True))
    for name, value in (("auto", "auto"), ("balanced", "balanced"), ("sequential", "sequential"), ("cuda 99", '{"": "cuda:99"}'),
                        ("list", "[0, 1]"), ("number", "0")):
        add(Form(f"t41 plan --device-map {name}", "K3", ["plan", "--model", model, "--gpu-gib", "8", "8", "--device-map",
                                                         value], codes=(0, 1, 2), error_line=True))

    # ------------------------------------------------------------ N1: ids that look like ids
    for label, case in (("trailing space", "KB0001 "), ("lower case", "kb0001"), ("newline", "KB0001\n"), ("five digits", "KB00001"),
                        ("dash", "KB-0001"), ("zero width", "KB0001\u200b"), ("arabic-indic digits", "KB\u0660\u0660\u0660\u0661"),
                        ("fullwidth", "\uff2b\uff22\uff10\uff10\uff10\uff11"), ("tab", "\tKB0001")):
        for fmt in ("text", "json"):
            add(Form(f"t41 show an id that looks like one: {label} {fmt}", "N1", ["show", case, "--format", fmt], codes=(0, 2),
                     error_line=True))

    # ------------------------------------------------------------ K2: a knowledge folder planted
    planted = tmp / "t41-knowledge"
    (planted / "cases" / "KB9999-x\x1b]0;t\x07").mkdir(parents=True)
    (planted / "cases" / "KB9999-x\x1b]0;t\x07" / "case.md").write_text("---\nid: KB9999\ntitle: \x1b]52;c;ZXZpbA==\x07x\n---\n"
                                                                         "\x9b2J " + TOKENS["hf-oauth"] + "\n")
    (planted / "families").mkdir()
    for label, root in (("planted", str(planted)), ("empty", str(tmp / "t41-empty-kd")), ("a file", log),
                        ("escapes in the path", str(tmp / "no\x1b]0;t\x07kd"))):
        if label == "empty":
            (tmp / "t41-empty-kd").mkdir()
        for args in (["list"], ["check"], ["show", "KB9999"], ["diagnose", log]):
            add(Form(f"t41 knowledge dir {label}: {args[0]}", "K2", args, env={"KB_KNOWLEDGE_DIR": root}, codes=(0, 1, 2),
                     error_line=True, secrets=SECRETS, timeout=60))
    return forms
