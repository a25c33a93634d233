"""Turn 37's held-out red team for benchmarks/hostile_io.py (issue 26): forms of each class that the first driver
did not have. Each name starts with ``t37``, so ``--only t37`` runs just these.

E1 escape sequences the first list lacked (OSC aborted by CAN/SUB, OSC 7 and 1337, DEC screen alignment ESC # 8,
ESC % G, DECSC/DECRC, a 10,000-parameter CSI, runs of ESC) through commands and arguments it did not reach
(`kb run`, `kb reproduce`, `kb explain`, plan's choice flags, KB_KNOWLEDGE_DIR, XDG_CACHE_HOME); R1/R2 standard
error closed or full, standard output opened read-only, standard input write-only or endless NULs, output
encodings that cannot hold kb's own characters (PYTHONIOENCODING=ascii, latin-1, cp1252); C1 mixed and broken
encodings (a UTF-16 BOM before UTF-8, a UTF-8 file with a UTF-16 or Latin-1 part, CESU-8, overlong NUL, a BOM inside,
NUL-separated lines, UTF-16 with a mismatched BOM, UTF-32 cut short), config files the same way; L1 numbers in
forms the first list lacked (binary/octal literals, vulgar fractions, superscripts, math digits, NBSP inside, int()'s
4,300-digit limit, inf) and odd CUDA_VISIBLE_DEVICES/rank/allocator values; N1 NVML bindings that lack functions,
lose one GPU, answer NVML_VALUE_NOT_AVAILABLE (2**64-1), zero or used-over-total memory, a 3-part compute capability,
NUL in names, processes that are None, a MemoryError; E2 tokens in config values, keys, launch variables and NVML
names (none may show); K1-K3 odd model configs, --from settings (a DeepSpeed config path at /dev/zero), device maps
and plan flags.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from hostile_io import ERROR, TB, Form

ESCAPES37 = {
    "osc-can": "\x1b]52;c;ZXZpbA==\x18", "osc-sub": "\x1b]0;t\x1a", "osc7": "\x1b]7;file://evil/etc\x07",
    "osc1337": "\x1b]1337;File=inline=1:AAAA\x07", "decaln": "\x1b#8", "esc-percent": "\x1b%G", "decsc": "\x1b7\x1b8",
    "csi-long": "\x1b[" + "1;" * 10_000 + "m", "esc-run": "\x1b" * 50 + "[2J", "c1-nel-csi": "\x85\x9b6n",
    "osc-in-csi": "\x1b[\x1b]52;c;eA==\x07m", "esc-utf8-c1": "\u009b\u0032\u004a",
}
TOKENS = {  # fake tokens of shapes kb redacts (random-looking, made up here)
    "hf": "hf_Zq8Wm2Lp5Rt9Xv3Bn7Kc1Hd4Fg6Jk0MnPq", "ghp": "ghp_R7tK2mQ9xZ4vB8nL1cW6pY3sD5fH0jG2aE8u",
    "akia": "AKIAZ7QW3ER5TY8UI2OP", "aws-secret": "wJ4lrXUtn/K7MDENG+bPxRfiCYZ9aQ2mE8sL0vK3",
    "password": "Tr0ub4dor&3 horse battery",
}


def turn37_forms(tmp: Path, write: Callable[[str, bytes | str], str]) -> list[Form]:
    forms: list[Form] = []
    add = forms.append
    log = write("t37.log", TB + ERROR + "\n")

    # ------------------------------------------------------------ E1
    for key, seq in ESCAPES37.items():
        text = f"{seq}\n{TB}{ERROR} {seq}\nValueError: {seq}bad\n"
        path = write(f"t37-e1-{key}.log", text)
        name = seq.replace("\x00", "")[:2000]
        add(Form(f"t37 diagnose text {key}", "E1", ["diagnose", path]))
        add(Form(f"t37 diagnose json {key}", "E1", ["diagnose", path, "--format", "json", "--all"]))
        add(Form(f"t37 explain unknown {key}", "E1", ["explain", f"x{name}"], codes=(2,), error_line=True))
        add(Form(f"t37 reproduce unknown {key}", "E1", ["reproduce", f"KB{name}"], codes=(2,), error_line=True))
        add(Form(f"t37 plan --trainer {key}", "E1", ["plan", "--model", "qwen2.5-0.5b", "--trainer", f"dpo{name}"],
                 codes=(2,), error_line=True))
        add(Form(f"t37 plan --optim {key}", "E1", ["plan", "--model", "qwen2.5-0.5b", "--optim", name], codes=(2,),
                 error_line=True))
        add(Form(f"t37 run missing command {key}", "E1", ["run", "--", str(tmp / f"nothing{name[:200]}")],
                 codes=(1, 2, 126, 127)))
        add(Form(f"t37 KB_KNOWLEDGE_DIR {key}", "E1", ["diagnose", log], env={"KB_KNOWLEDGE_DIR": f"/nowhere{name[:200]}"},
                 codes=(2,), error_line=True))
        add(Form(f"t37 XDG_CACHE_HOME {key}", "E1", ["diagnose", log], env={"XDG_CACHE_HOME": f"/tmp/c{name[:200]}"},
                 codes=(0, 1)))
        add(Form(f"t37 env LOCAL_RANK {key}", "E1", ["env"], env={"LOCAL_RANK": name[:200], "MASTER_PORT": name[:200]}))

    # ------------------------------------------------------------ R1/R2: the other streams
    bad = str(tmp / "t37-missing.log")
    for label, args, expect in (("bad input", ["diagnose", bad], 2), ("good input", ["diagnose", log], 0),
                                ("env", ["env"], 0), ("plan bad", ["plan", "--model", "nope-model"], 2)):
        quoted = " ".join(f"'{a}'" for a in args)
        add(Form(f"t37 stderr full: {label}", "R1", args, codes=(expect,), shell=f"@KB@ {quoted} 2>/dev/full; echo $?"))
        add(Form(f"t37 stderr closed: {label}", "R1", args, codes=(expect,), shell=f"@KB@ {quoted} 2>&-; echo $?"))
    add(Form("t37 stdout read-only", "R1", ["diagnose", log], codes=(2,), says="cannot write the output",
             shell=f"@KB@ diagnose '{log}' 1</dev/null; echo $?"))
    add(Form("t37 stdout read-only json", "R1", ["diagnose", log], codes=(2,), says="cannot write the output",
             shell=f"@KB@ diagnose '{log}' --format json 1</dev/null; echo $?"))
    add(Form("t37 stdin write-only", "R2", ["diagnose", "-"], codes=(2,), error_line=True,
             shell=f"@KB@ diagnose - 0>'{tmp}/t37-wo'; echo $?"))
    add(Form("t37 stdin /dev/zero", "R2", ["diagnose", "-"], codes=(2,), error_line=True, timeout=30,
             shell="@KB@ diagnose - </dev/zero; echo $?"))
    add(Form("t37 stdin /dev/zero json", "R2", ["diagnose", "-"], codes=(2,), error_line=True, timeout=30,
             shell="@KB@ diagnose - --format json </dev/zero; echo $?"))
    for encoding in ("ascii", "latin-1", "cp1252", "ascii:strict", "utf-16"):
        for args in (["diagnose", log], ["diagnose", log, "--all"], ["diagnose", log, "--format", "json"],
                     ["env"], ["plan", "--model", "qwen2.5-0.5b"], ["show", "KB0001"], ["list"], ["list", "--families"],
                     ["diagnose", bad]):
            add(Form(f"t37 PYTHONIOENCODING={encoding}: kb {' '.join(args[:2])}", "R1", args,
                     env={"PYTHONIOENCODING": encoding}, codes=(2,) if args[-1] == bad else (0, 1)))

    # ------------------------------------------------------------ C1
    text = TB + ERROR + "\n"
    u8 = text.encode()
    mixed = {
        "utf16-bom-then-utf8": b"\xff\xfe" + u8, "utf8-then-utf16": u8 + "more text\n".encode("utf-16-le") + u8,
        "utf8-latin1-line": b"log: caf\xe9\n" + u8, "cesu-8": "x ".encode() + b"\xed\xa0\xbd\xed\xb8\x80\n" + u8,
        "overlong-nul": b"a\xc0\x80b\n" + u8, "bom-inside": u8 + b"\xef\xbb\xbf" + u8, "nul-separated": u8.replace(b"\n", b"\x00"),
        "utf16le-bom-be-body": b"\xff\xfe" + text.encode("utf-16-be"), "utf32-cut": text.encode("utf-32")[:-3],
        "nul-every-third": bytes(b for i, c in enumerate(u8) for b in ((c, 0) if i % 2 else (c,))),
        "utf16-emoji": ("😀 " + text).encode("utf-16"), "utf8-bom-cr-only": b"\xef\xbb\xbf" + u8.replace(b"\n", b"\r"),
        "long-ascii-line": b"x" * 70_000 + b" " + u8, "nul-megabyte-then-error": b"\x00" * 1_000_000 + b"\n" + u8,
        "utf7-bom": b"+/v8-" + u8, "half-utf16": u8[:40] + text[40:].encode("utf-16-le"),
        "utf8-c1-controls": "\u0085\u0090\u009d".encode() + u8, "latin1-c1-bytes": b"\x85\x90\x9d\n" + u8,
    }
    for name, data in mixed.items():
        path = write(f"t37-c1-{name}.log", data)
        add(Form(f"t37 encoding {name}", "C1", ["diagnose", path], error_line=True))
        add(Form(f"t37 encoding {name} stdin json", "C1", ["diagnose", "-", "--format", "json"], stdin=data,
                 error_line=True))
    settings = "per_device_train_batch_size: 2\noptim: adamw_torch\n"
    config = json.dumps({"model_type": "llama", "hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                         "intermediate_size": 128, "vocab_size": 1000})
    for name, data in (("yaml-utf16", settings.encode("utf-16")), ("yaml-bom", b"\xef\xbb\xbf" + settings.encode()),
                       ("yaml-nul", settings.encode().replace(b"\n", b"\x00\n")), ("yaml-latin1", b"optim: caf\xe9\n"),
                       ("json-utf16-nobom", config.encode("utf-16-le")), ("json-utf32-be", config.encode("utf-32-be")),
                       ("json-cesu", config.encode()[:-1] + b', "x": "\xed\xa0\xbd"}'), ("json-nul-raw", config.encode()[:-1] + b', "x": "\x00"}')):
        ext = "yaml" if name.startswith("yaml") else "json"
        path = write(f"t37-c1-cfg-{name}.{ext}", data)
        add(Form(f"t37 config {name}: env --config", "C1", ["env", "--config", path], error_line=True))
        add(Form(f"t37 config {name}: plan --from", "C1", ["plan", "--from", path, "--model", "qwen2.5-0.5b"],
                 error_line=True))
        add(Form(f"t37 config {name}: plan --config", "C1", ["plan", "--config", path], error_line=True))
        add(Form(f"t37 config {name}: --device-map file", "C1", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8",
                                                               "--device-map", path], error_line=True))

    # ------------------------------------------------------------ L1
    for value in ("0b101", "0o17", "½", "²", "𝟗", "๙", "1\u00a0000", "1_0_0", ".5", "5.", "-inf", "+inf", "9" * 4300,
                  "9" * 4301, "-" + "9" * 5000, "1e-5", "0e0", "1e3", "--5", "5e", "0x", "٣٫٥"):
        short = value if len(value) < 12 else value[:6] + "..."
        for args in (["diagnose", log, "--limit", value], ["diagnose", log, "--width", value], ["env", "--nproc", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--batch", value], ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--grad-accum", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--lora-alpha", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--lora-dropout", value],
                     ["plan", "--model", "qwen2.5-0.5b", "--prompt-len", value, "--trainer", "dpo"]):
            add(Form(f"t37 number {short} {' '.join(args[:1] + [a for a in args if a.startswith('--')])}", "L1", args,
                     codes=(0, 1, 2), error_line=True))
    for var, values in (("CUDA_VISIBLE_DEVICES", ("GPU-ffffffff-ffff-ffff-ffff-ffffffffffff", "MIG-GPU-x/1/2", "0,0,0",
                                                  ",,,", "-1", "0-3", "0, 1", " ", "0," * 20_000, "１")),
                        ("LOCAL_RANK", ("-1", "1e3", "0x1", "½")), ("WORLD_SIZE", ("0", "-5", "9" * 4301)),
                        ("LOCAL_WORLD_SIZE", ("0", "-1")), ("COLUMNS", ("-80", "0", "1e3", "9" * 4301)),
                        ("PYTORCH_CUDA_ALLOC_CONF", ("max_split_size_mb:-1", "garbage_collection_threshold:nan", ":::",
                                                    "expandable_segments:True," * 2000, "max_split_size_mb:" + "9" * 4301,
                                                    "backend:cudaMallocAsync,max_split_size_mb:1e400"))):
        for value in values:
            short = value if len(value) < 16 else value[:8] + "..."
            for args in (["env"], ["env", "--format", "json"], ["diagnose", "--env", log]):
                add(Form(f"t37 {var}={short}: {' '.join(args[:2])}", "L1", args, env={var: value}, codes=(0, 1)))

    # ------------------------------------------------------------ N1 and E2
    for mode in ("missing-functions", "handle-fails-one", "not-available", "zero-total", "used-over-total", "cc-three",
                 "cc-dict", "name-nul", "proc-none", "procs-not-list", "memory-error", "secret-names"):
        for args in (["env"], ["env", "--format", "json"], ["diagnose", "--env", log],
                     ["diagnose", "--env", "--format", "json", log]):
            add(Form(f"t37 nvml {mode}: {' '.join(args[:3])}", "N1" if mode != "secret-names" else "E2", args,
                     env={"FAKE_NVML": mode}, codes=(0, 1), timeout=60,
                     secrets=(TOKENS["hf"][3:],) if mode == "secret-names" else ()))
    config_values = {
        "hub_token": TOKENS["hf"], "push_to_hub_token": TOKENS["hf"], "run_name": f"run {TOKENS['ghp']}",
        "report_to": ["wandb", TOKENS["akia"]], "aws_secret_access_key": TOKENS["aws-secret"],
        "password": TOKENS["password"], "hub_model_id": f"https://user:{TOKENS['password'].split()[0]}x9@hub.test/m",
        "deepspeed": {"wandb": {"api_key": "0123456789abcdef0123456789abcdef01234567"}},
        TOKENS["ghp"]: 1, "optim": f"adamw_torch {TOKENS['hf']}",
    }
    secrets = (TOKENS["hf"][3:], TOKENS["ghp"][4:], TOKENS["akia"][4:], TOKENS["aws-secret"], "Tr0ub4dor&3",
               "0123456789abcdef0123456789abcdef01234567")
    for name, data in (("json", json.dumps(config_values)),
                       ("yaml", "".join(f"{k}: {json.dumps(v)}\n" for k, v in config_values.items()))):
        path = write(f"t37-e2-config.{name}", data)
        for fmt in ("text", "json"):
            add(Form(f"t37 env --config secrets {name} {fmt}", "E2", ["env", "--config", path, "--format", fmt],
                     secrets=secrets))
            add(Form(f"t37 plan --from secrets {name} {fmt}", "E2", ["plan", "--from", path, "--model", "qwen2.5-0.5b",
                                                                    "--format", fmt], secrets=secrets, error_line=True))
    for fmt in ("text", "json"):
        add(Form(f"t37 env launch variables hold tokens {fmt}", "E2", ["env", "--format", fmt], secrets=secrets,
                 env={"ACCELERATE_HUB_TOKEN": TOKENS["hf"], "MASTER_ADDR": f"trainer:{TOKENS['aws-secret']}@10.0.0.1",
                      "ACCELERATE_CONFIG": f"/home/alice/{TOKENS['ghp']}.yaml", "RANK": TOKENS["akia"]}))
        add(Form(f"t37 diagnose --env launch variables hold tokens {fmt}", "E2", ["diagnose", "--env", "--format", fmt, log],
                 secrets=secrets, env={"ACCELERATE_HUB_TOKEN": TOKENS["hf"], "LOCAL_RANK": TOKENS["ghp"]}))
        add(Form(f"t37 plan --model is a token {fmt}", "E2", ["plan", "--model", TOKENS["hf"], "--format", fmt],
                 secrets=secrets, codes=(2,), error_line=True))
        add(Form(f"t37 plan --model user/token {fmt}", "E2", ["plan", "--model", f"meta-llama/{TOKENS['ghp']}", "--format", fmt],
                 secrets=secrets, codes=(2,), error_line=True))
        add(Form(f"t37 diagnose file named by a token {fmt}", "E2", ["diagnose", str(tmp / f"{TOKENS['hf']}.log"),
                                                                    "--format", fmt],
                 secrets=secrets, codes=(2,), error_line=True))

    # ------------------------------------------------------------ K1-K3
    base = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
            "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256}
    odd_configs = {
        "model-type-list": {"model_type": ["llama"]}, "model-type-dict": {"model_type": {}}, "model-type-int": {"model_type": 7},
        "architectures-int": {"architectures": 5}, "text-config-list": {"text_config": []},
        "text-config-negative": {"text_config": {"hidden_size": -1}}, "text-config-deep": {"text_config": json.loads(
            '{"text_config": ' * 60 + "{}" + "}" * 60)}, "heads-not-dividing": {"num_attention_heads": 3},
        "kv-heads-over-heads": {"num_key_value_heads": 64}, "kv-heads-zero": {"num_key_value_heads": 0},
        "rope-factor-huge": {"rope_scaling": {"type": "linear", "factor": 1e308}},
        "quant-config-strings": {"quantization_config": {"load_in_4bit": "yes", "bnb_4bit_compute_dtype": 5}},
        "quant-gptq-bits-zero": {"quantization_config": {"quant_method": "gptq", "bits": 0}},
        "quant-bits-huge": {"quantization_config": {"quant_method": "awq", "bits": 10**400}},
        "dtype-float8": {"torch_dtype": "float8_e4m3fn"}, "dtype-complex": {"torch_dtype": "complex128"},
        "dtype-key-new": {"dtype": "int4"}, "layer-types-int": {"layer_types": 5},
        "layer-types-short": {"layer_types": ["full_attention"]}, "sliding-window-negative": {"sliding_window": -1},
        "vocab-one": {"vocab_size": 1}, "hidden-one": {"hidden_size": 1, "num_attention_heads": 1},
        "intermediate-zero": {"intermediate_size": 0}, "experts-huge": {"num_local_experts": 10**6, "num_experts_per_tok": 2},
        "experts-per-tok-over": {"num_local_experts": 4, "num_experts_per_tok": 64},
        "key-with-space": {"hidden_size ": 4096, "hidden_size": None}, "head-dim-float": {"head_dim": 127.5},
        "head-dim-str": {"head_dim": "128"}, "moe-intermediate-negative": {"num_experts": 8, "moe_intermediate_size": -1},
    }
    for name, extra in odd_configs.items():
        path = write(f"t37-k1-{name}.json", json.dumps({**base, **extra}))
        add(Form(f"t37 config {name}", "K1", ["plan", "--config", path, "--gpu-gib", "24"], error_line=True, timeout=30))
        add(Form(f"t37 config {name} --fit", "K1", ["plan", "--config", path, "--gpu-gib", "24", "--fit"],
                 error_line=True, timeout=60))
    for name, data in (("json-comments", '// a comment\n' + json.dumps(base)), ("json-trailing-comma", json.dumps(base)[:-1] + ",}"),
                       ("json-array-of-configs", json.dumps([base, base])), ("json-single-quotes", json.dumps(base).replace('"', "'"))):
        path = write(f"t37-k1-{name}.json", data)
        add(Form(f"t37 config file {name}", "K1", ["plan", "--config", path], error_line=True))
    fifo = tmp / "t37-fifo.json"
    os.mkfifo(fifo)
    odd_settings = {
        "deepspeed-dev-zero": {"deepspeed": "/dev/zero"}, "deepspeed-proc-mem": {"deepspeed": "/proc/self/mem"},
        "deepspeed-fifo": {"deepspeed": str(fifo)}, "deepspeed-dir": {"deepspeed": str(tmp)},
        "deepspeed-missing": {"deepspeed": str(tmp / "nowhere.json")}, "deepspeed-stage-99": {"deepspeed": {"zero_optimization": {"stage": 99}}},
        "deepspeed-stage-str": {"deepspeed": {"zero_optimization": {"stage": "3"}}}, "deepspeed-list": {"deepspeed": [1]},
        "fsdp-int": {"fsdp": 5}, "fsdp-config-dev-zero": {"fsdp": "full_shard", "fsdp_config": "/dev/zero"},
        "target-modules-int": {"lora_target_modules": 5}, "target-modules-nulls": {"target_modules": [1, None]},
        "peft-config-r-str": {"peft_config": {"r": "x"}}, "peft-config-list": {"peft_config": []},
        "lora-r-tiny": {"lora_r": 1e-300}, "accumulation-float": {"gradient_accumulation_steps": 1.5},
        "optim-long": {"optim": "adamw_8bit" * 1000}, "optim-empty": {"optim": ""}, "seq-str-exp": {"max_seq_length": "1e3"},
        "batch-str-spaces": {"per_device_train_batch_size": " 2 "}, "ckpt-kwargs-str": {"gradient_checkpointing_kwargs": "x"},
        "bf16-and-fp16": {"bf16": True, "fp16": True}, "torch-dtype-int": {"torch_dtype": 5},
        "model-name-dev-zero": {"model_name_or_path": "/dev/zero"}, "model-name-token": {"model_name_or_path": TOKENS["hf"]},
    }
    for name, extra in odd_settings.items():
        path = write(f"t37-k1-from-{name}.json", json.dumps({"per_device_train_batch_size": 2, **extra}))
        add(Form(f"t37 --from {name}", "K2" if "dev-zero" in name or "fifo" in name or "proc" in name else "K1",
                 ["plan", "--from", path, "--model", "qwen2.5-0.5b", "--gpu-gib", "24"], error_line=True, timeout=30,
                 secrets=(TOKENS["hf"][3:],)))
        add(Form(f"t37 env --config {name}", "K2" if "dev-zero" in name or "fifo" in name or "proc" in name else "K1",
                 ["env", "--config", path], error_line=True, timeout=30, secrets=(TOKENS["hf"][3:],)))
    maps = {
        "cuda-huge-index": {"": "cuda:99999999999999999999"}, "cuda-negative": {"": "cuda:-1"}, "mps": {"": "mps"},
        "xpu": {"": "xpu:0"}, "space-digit": {"": " 0"}, "string-digit": {"": "0"}, "layer-negative": {"model.layers.-1": 0},
        "layer-zero-padded": {"model.layers.01": 0}, "layer-exp": {"model.layers.1e3": 0}, "layer-empty": {"model.layers.": 0},
        "cuda-no-index": {"lm_head": "cuda"}, "overlapping": {"model": 0, "model.layers.0": 1}, "root-and-head": {"": 0, "lm_head": 1},
        "long-key": {"x" * 100_000: 0}, "unicode-digit": {"": "cuda:١"}, "fullwidth-index": {"": "cuda:１"},
    }
    for name, mapping in maps.items():
        add(Form(f"t37 device map {name}", "K3", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8", "--device-map",
                                                  json.dumps(mapping, ensure_ascii=False)], error_line=True, timeout=30))
    for name, text in (("duplicate keys", '{"": 0, "": 1}'), ("balanced", "balanced"), ("balanced_low_0", "balanced_low_0"),
                       ("sequential", "sequential"), ("AUTO", "AUTO"), ("auto spaces", " auto ")):
        add(Form(f"t37 device map text {name}", "K3", ["plan", "--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8",
                                                       "--device-map", text], error_line=True, timeout=30))
    for name, args in (("model empty", ["--model", ""]), ("model dot", ["--model", "."]), ("model root", ["--model", "/"]),
                       ("model parent path", ["--model", "../../../../etc"]), ("model dev zero", ["--model", "/dev/zero"]),
                       ("model 100k", ["--model", "q" * 100_000]), ("fit tiny gpu", ["--model", "qwen2.5-0.5b", "--fit", "--gpu-gib", "0.0001"]),
                       ("fit 1e-300", ["--model", "qwen2.5-0.5b", "--fit", "--gpu-gib", "1e-300"]),
                       ("gpus vs gpu-gib", ["--model", "qwen2.5-0.5b", "--gpu-gib", "8", "8", "8", "--gpus", "2", "--strategy", "ddp"]),
                       ("fsdp one gpu", ["--model", "qwen2.5-0.5b", "--strategy", "fsdp", "--gpus", "1", "--gpu-gib", "8"]),
                       ("zero3 offload params 64", ["--model", "qwen2.5-0.5b", "--strategy", "zero3", "--gpus", "64", "--offload",
                                                    "params", "--gpu-gib", "8", "--fit"]),
                       ("generate huge seq", ["--model", "qwen2.5-0.5b", "--task", "generate", "--seq", "1000000000", "--gpu-gib", "8"]),
                       ("grpo one generation", ["--model", "qwen2.5-0.5b", "--trainer", "grpo", "--num-generations", "1"]),
                       ("target modules empty", ["--model", "qwen2.5-0.5b", "--target-modules", ""]),
                       ("target modules commas", ["--model", "qwen2.5-0.5b", "--target-modules", ",,,"]),
                       ("target modules huge", ["--model", "qwen2.5-0.5b", "--target-modules", ",".join(["q_proj"] * 5_000)]),
                       ("ref precomputed no trainer", ["--model", "qwen2.5-0.5b", "--ref", "precomputed"]),
                       ("lora-r 0 with quant", ["--model", "qwen2.5-0.5b", "--lora-r", "0", "--quant", "nf4"])):
        add(Form(f"t37 plan {name}", "K3", ["plan", *args], error_line=True, timeout=60))
    return forms
