"""The mix42 rules (issue #24): each on the error output of the real reports it was built from (dev-corpus batch gh-mix-15
and the earlier batches' silent kb-family reports; the URL beside each) and on the near forms it must decline.

- tables/priors.toml block "mix42": LLVM's NVPTX code generator (Triton's kernel compiler) finding no instruction for
  this GPU's architecture (cuda-setup, process evidence); a JSONDecodeError while a training script reads a JSON Lines
  data file record by record (training-data, the message's class and the statement that read a line); a title that
  names a PEFT adapter trained with gradient checkpointing and says it fails (no-grad-fn, a title's words).
"""

from __future__ import annotations

import pytest

from rules_support import ruled

SP = "/home/ana/.venv/lib/python3.11/site-packages"  # a site-packages folder for the frames tests build


def _top(text: str) -> tuple[str, str] | None:
    found = ruled(text)
    return found[0] if found else None


# -- LLVM's NVPTX back end has no instruction for this GPU ---------------------------------------------------------------
# unslothai/unsloth#309 (a GTX 1080, compute capability 6.1) prints the progress bar, then LLVM's fatal error on the same
# line, then the shell's "Aborted"; unslothai/unsloth#1856 (an RTX 50xx) pasted the one line.
LLVM_FORMS = [
    "  0%|          | 0/3346 [00:00<?, ?it/s]LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.bfly.i32\n"
    "Aborted\n",
    "LLVM ERROR: Cannot select: intrinsic %llvm.nvvm.shfl.sync.bfly.i32\n",
    "Unsloth: Will patch your computer to enable 2x faster free finetuning.\n"
    "LLVM ERROR: Cannot select: t42: i32 = NVPTXISD::LoadParam<(load 4)> t41, Constant:i32<1>\n",
]


@pytest.mark.parametrize("text", LLVM_FORMS)
def test_llvms_nvptx_back_end_without_an_instruction_for_the_gpu_is_cuda_setup(text: str) -> None:
    assert _top(text) == ("cuda-setup", "family-prior")


LLVM_NEAR = [
    # AssemblyAI-Community/MinImagen#16: Apple's MPS graph compiler (an image model on a Mac), no NVPTX target
    "LLVM ERROR: Failed to infer result type(s).\n",
    # a CPU JIT's instruction selection (another target than the GPU's)
    "LLVM ERROR: Cannot select: intrinsic %llvm.x86.avx512.mask.cvtps2dq.512\n",
    # a sentence that names the words without the error
    "Does unsloth print an LLVM ERROR on old cards?\n",
]


@pytest.mark.parametrize("text", LLVM_NEAR)
def test_llvms_other_errors_stay_unclaimed_by_the_rule(text: str) -> None:
    assert "cuda-setup" not in [family for family, _basis in ruled(text)]


# -- a JSON Lines data file that does not parse, read by the training script itself -------------------------------------
def _json_error(frames: str, message: str = "Expecting value: line 2 column 1 (char 2)") -> str:
    return ("Traceback (most recent call last):\n" + frames
            + '  File "/usr/local/lib/python3.10/json/__init__.py", line 346, in loads\n'
            "    return _default_decoder.decode(s)\n"
            '  File "/usr/local/lib/python3.10/json/decoder.py", line 355, in raw_decode\n'
            '    raise JSONDecodeError("Expecting value", s, err.value) from None\n'
            f"json.decoder.JSONDecodeError: {message}\n")


# declare-lab/flan-alpaca#5: the script's data module reads each line of the file with json.loads (the frames here are
# made up in the same shape: a data-loading module, a comprehension over the file's lines)
JSON_FORMS = [
    _json_error('  File "/home/ana/sft/train.py", line 80, in main\n    rows = read_rows(args.data_path)\n'
                '  File "/home/ana/sft/data_loading.py", line 31, in <listcomp>\n'
                "    rows = [Example(**json.loads(line)) for line in handle]\n"),
    _json_error('  File "/home/ana/sft/train.py", line 44, in load_jsonl\n'
                "    records.append(json.loads(line.strip()))\n", "Extra data: line 1 column 5 (char 4)"),
]


@pytest.mark.parametrize("text", JSON_FORMS)
def test_a_json_lines_data_file_that_does_not_parse_is_training_data(text: str) -> None:
    assert _top(text) == ("training-data", "family-prior")


JSON_NEAR = [
    # an HTTP reply that is not JSON (a web API, a scraper): no record read line by line, no data-loading module
    _json_error('  File "/home/ana/bot/app.py", line 3, in <module>\n    reply = requests.get(url).json()\n',
                "Expecting value: line 1 column 1 (char 0)"),
    # a configuration file
    _json_error('  File "/home/ana/tool/settings.py", line 9, in load\n    cfg = json.load(open(path))\n'),
    # a data-cleaning script that reads the whole file as one JSON document (the shape of sail-sg/CPO#2, the dev set's
    # unrelated entry h2c-unrel-json-cpo-2): a module named for data is no record read line by line
    _json_error('  File "/home/ana/agent/clean_dataset.py", line 21, in <module>\n'
                "    instances = json.loads(handle.read())\n", "Expecting value: line 1 column 1 (char 0)"),
    # the class alone, pasted without its traceback
    "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)\n",
]


@pytest.mark.parametrize("text", JSON_NEAR)
def test_other_json_decode_errors_stay_unclaimed_by_the_rule(text: str) -> None:
    assert "training-data" not in [family for family, _basis in ruled(text)]


# -- a title: a PEFT adapter trained with gradient checkpointing fails ----------------------------------------------------
# the shape of the title-only reports huggingface/transformers#42489 ("PEFT training with gradient checkpointing fails") and
# #28335 ("Peft + gradient checkpointing crashes"), dev corpus, labelled no-grad-fn
CKPT_TITLES = [
    "LoRA training with gradient checkpointing fails\n",
    "peft + gradient_checkpointing crashes on the first step\n",
    "Prompt tuning with use_reentrant=True raises an error in backward\n",
]


@pytest.mark.parametrize("text", CKPT_TITLES)
def test_a_title_naming_an_adapter_with_gradient_checkpointing_that_fails_is_no_grad_fn(text: str) -> None:
    assert _top(text) == ("no-grad-fn", "family-keyword")


CKPT_NEAR = [
    "Question about gradient checkpointing with LoRA?\n",  # no failure
    "LoRA with gradient checkpointing and DDP fails\n",  # DDP's reducer marks a parameter twice: another family
    "QLoRA + gradient checkpointing still runs out of memory, error\n",  # memory
    "Gradient checkpointing with LoRA is slow and fails to speed up\n",  # speed
    "gradient checkpointing fails with my custom model\n",  # no adapter named
]


@pytest.mark.parametrize("text", CKPT_NEAR)
def test_other_checkpointing_titles_stay_unclaimed_by_the_rule(text: str) -> None:
    assert "no-grad-fn" not in [family for family, _basis in ruled(text)]


# -- review42: near forms the rules claimed at 683b5a2 (each fails without the excludes added then) ----------------------
# a chat client's streamed reply decoded line by line by the client's package (ollama's _client.py, LangChain's Ollama
# LLM): a server's reply, no data file of the run's
JSON_CLIENT_NEAR = [
    _json_error('  File "/home/ana/bot/app.py", line 9, in <module>\n'
                '    for part in ollama.chat(model="llama3", messages=m, stream=True):\n'
                f'  File "{SP}/ollama/_client.py", line 98, in inner\n    part = json.loads(line)\n',
                "Expecting value: line 1 column 1 (char 0)"),
    _json_error('  File "/home/ana/bot/app.py", line 9, in <module>\n    llm.invoke("hi")\n'
                f'  File "{SP}/langchain_community/llms/ollama.py", line 300, in _create_stream\n'
                "    yield json.loads(line)\n", "Expecting value: line 1 column 1 (char 0)"),
]


@pytest.mark.parametrize("text", JSON_CLIENT_NEAR)
def test_a_network_clients_streamed_reply_is_no_json_lines_data_file(text: str) -> None:
    assert "training-data" not in [family for family, _basis in ruled(text)]


CKPT_NEAR_REVIEW42 = [
    "Training LoRA with gradient checkpointing on 2 GPUs fails\n",  # several GPUs said by their count
    "LoRA with gradient checkpointing crashes on two 4090s with accelerate\n",
    "LoRA + gradient checkpointing fails with torchrun --nproc_per_node 4\n",  # a launcher of several processes
    "Gradient checkpointing with LoRA errors with dtype mismatch in fp16\n",  # another failure named
    "prompt tuning with gradient checkpointing fails: size mismatch\n",
]


@pytest.mark.parametrize("text", CKPT_NEAR_REVIEW42)
def test_checkpointing_titles_naming_several_gpus_or_another_failure_stay_unclaimed(text: str) -> None:
    assert "no-grad-fn" not in [family for family, _basis in ruled(text)]
