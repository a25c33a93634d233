"""The err40 rules (issue #24): each on the error output of the real reports it was built from (corpus batch gh-err-05
and the earlier dev batches; the URL beside each) and on the near forms it must decline.

- families/hang.md nccl-work-descriptor-timeout and nccl-work-timeout-status (with tables/noise.toml's two rules): a
  timed-out NCCL work read from its "WorkNCCL(...)" descriptor and timeout tail, or from torch's desync line, whatever
  words come before it;
- tables/priors.toml: NCCL's benign "Failed to open libibverbs" WARN no longer claimed as multi-gpu-launch; block
  "err40": a JSON/YAML config run as the script (multi-gpu-launch), a tokenizer's save (checkpoint-io), datasets
  building a split from its data files (training-data);
- families/cuda-setup.md cuda-library-missing: TensorFlow's own loader warning is not the run's CUDA setup.
"""

from __future__ import annotations

import pytest

from rules_support import ruled


def _top(text: str) -> tuple[str, str] | None:
    found = ruled(text)
    return found[0] if found else None


# -- a timed-out NCCL work, read from its descriptor -------------------------------------------------------------------
@pytest.mark.parametrize("text", [
    # InternLM/InternLM-XComposer#447: the line as its reporter typed it ("caught a collective")
    "Watchdog caught a collective operation timeout: WorkNCCL(SeqNum=1, OpType=BROADCAST, Timeout(ms)=1800000) ran "
    "for 1808543 milliseconds before timing out.\n",
    # torch 1.8/1.9's wording, without "Watchdog" (as in OFA-Sys/OFA#271's older logs)
    "[E ProcessGroupNCCL.cpp:587] [Rank 0] Caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1806173 milliseconds before timing out.\n",
    # huggingface/nanotron#204: the log wrapped the line after "Watchdog caught"
    "[default2]:[E ProcessGroupNCCL.cpp:475] [Rank 2] Watchdog caught \n"
    "collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
    "ran for 600888 milliseconds before timing out.\n",
    # huggingface/diffusers#12422: TORCH_NCCL_BLOCKING_WAIT's wording of the same timeout
    "[rank1]:[E1002 18:16:40.662691402 ProcessGroupNCCL.cpp:756] [Rank 1] Work WorkNCCL(SeqNum=2521, "
    "OpType=ALLREDUCE, NumelIn=160672064, NumelOut=160672064, Timeout(ms)=600000) timed out in blocking wait.\n",
    # GAIR-NLP/DeepResearcher#16: torch's desync line, pasted without the watchdog line
    "(WorkerDict pid=63294) [rank3]:[E416 20:40:12.986037518 ProcessGroupNCCL.cpp:1709] [PG 5 Rank 3] Timeout at "
    "NCCL work: 8, last enqueued NCCL work: 10, last completed NCCL work: 7.\n",
])
def test_a_timed_out_nccl_work_is_a_hang(text: str) -> None:
    assert _top(text) == ("hang", "family-evidence")


def test_the_descriptor_reads_the_timeout_numbers() -> None:
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    text = ("[E ProcessGroupNCCL.cpp:587] [Rank 0] Caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
            "Timeout(ms)=1800000) ran for 1806173 milliseconds before timing out.\n")
    top = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers[0]
    assert top.match.signature.name == "nccl-work-descriptor-timeout"
    assert top.match.captures["timeout_ms"] == "1800000" and top.match.captures["op"] == "ALLREDUCE"


@pytest.mark.parametrize("text", [
    "WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) completed\n",  # no timeout tail
    # torch's watchdog report that may be an NCCL error as well as a timeout: not read as a hang
    "[rank0]:[E1206 18:44:12.715588844 ProcessGroupNCCL.cpp:1664] [PG 1 Rank 0] Exception (either an error or timeout) "
    "detected by watchdog at work: 7753, last enqueued NCCL work: 7755, last completed NCCL work: 7752.\n",
])
def test_near_forms_are_not_a_timed_out_work(text: str) -> None:
    assert _top(text) != ("hang", "family-evidence")


def test_a_real_error_before_the_timeout_lines_decides() -> None:
    # a rank ran out of memory; the others then time out in their next collective (noise.toml's rules for these lines)
    text = ('Traceback (most recent call last):\n  File "/home/u/train.py", line 20, in <module>\n    trainer.train()\n'
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total "
            "capacity; 20.10 GiB already allocated; 1.50 GiB free; 21.00 GiB reserved in total by PyTorch)\n"
            "[E ProcessGroupNCCL.cpp:587] [Rank 1] Caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
            "Timeout(ms)=1800000) ran for 1806173 milliseconds before timing out.\n"
            "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 12, last enqueued NCCL work: 12, "
            "last completed NCCL work: 11.\n")
    assert _top(text) == ("cuda-oom", "family-evidence")


# -- NCCL's benign InfiniBand probe -------------------------------------------------------------------------------------
IBVERBS = ("<2nd node server>:5359:5359 [0] NCCL INFO NET/Plugin : No plugin found (libnccl-net.so).\n\n"
           "<2nd node server>:5359:5359 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
           "<2nd node server>:5359:5359 [0] NCCL INFO NET/Socket : Using [0]eth0:node2_ip<0> [1]docker0:172.17.0.1<0>\n"
           "NCCL version 2.4.8+cuda10.1\n")


def test_nccl_finding_no_infiniband_library_is_not_a_failure() -> None:
    # facebookresearch/fairseq#2329: NCCL_DEBUG=INFO output of a run that worked, pasted with a question
    assert _top(IBVERBS) is None


def test_another_nccl_warn_still_answers() -> None:
    # mosaicml/diffusion#110's form: a connection NCCL could not make
    text = ("node1:6015:6225 [1] proxy.cc:1119 NCCL WARN [Proxy Service 1] Failed to execute operation Connect from "
            "rank 1, retcode 6\n")
    assert _top(text) == ("multi-gpu-launch", "family-prior")


# -- a configuration file run as the training script --------------------------------------------------------------------
CONFIG_RUN = ('Traceback (most recent call last):\n  File "{file}", line 4, in <module>\n    "fp16": false,\n'
              "NameError: name 'false' is not defined\n")


def test_a_json_config_run_as_the_script_is_a_launch_mistake() -> None:
    # huggingface/accelerate#77: the launcher was given the config where the script goes
    text = CONFIG_RUN.format(file="accelerate_config.json") + "Killing subprocess 125824\nKilling subprocess 125825\n"
    assert _top(text) == ("multi-gpu-launch", "family-prior")


def test_a_yaml_config_run_as_the_script() -> None:
    text = ('Traceback (most recent call last):\n  File "/home/u/configs/ds_zero3.yaml", line 2, in <module>\n'
            "    zero_stage: 3\nNameError: name 'zero_stage' is not defined\n")
    assert _top(text) == ("multi-gpu-launch", "family-prior")


def test_a_name_error_in_a_python_script_is_not_this_rule() -> None:
    assert _top(CONFIG_RUN.format(file="/home/u/train.py")) != ("multi-gpu-launch", "family-prior")


def test_a_config_file_named_near_a_name_error_is_not_this_rule() -> None:
    """review40 (high): the rule read any line near the error; a notebook cell's `!ls` of an adapter folder, then a
    NameError in the user's own code, answered multi-gpu-launch. Only the frame that raised counts (`innermost`)."""
    text = ("adapter_config.json\nadapter_model.safetensors\ntokenizer.json\ntokenizer_config.json\n"
            "Traceback (most recent call last):\n  File \"/tmp/ipykernel_1/1234.py\", line 3, in <module>\n"
            "    model = PeftModel.from_pretrained(base, \"out\")\nNameError: name 'PeftModel' is not defined\n")
    assert _top(text) != ("multi-gpu-launch", "family-prior")


# -- a tokenizer's save --------------------------------------------------------------------------------------------------
SAVE_VOCAB = ('Traceback (most recent call last):\n'
              '  File "/home/k/Fine-tuning/snli_bert_base_uncased3.py", line 313, in train\n'
              "    tokenizer.save_vocabulary(output_vocab_file)\n"
              '  File "/home/k/miniconda3/lib/python3.9/site-packages/transformers/models/bert/tokenization_bert_fast.py",'
              ' line 303, in {function}\n'
              "    files = self._tokenizer.model.save(save_directory, name=filename_prefix)\n"
              "Exception: No such file or directory (os error 2)\n")


def test_a_tokenizer_save_that_fails_is_checkpoint_io() -> None:
    # huggingface/tokenizers#1033: save_vocabulary given a file path where a directory goes
    assert _top(SAVE_VOCAB.format(function="save_vocabulary")) == ("checkpoint-io", "family-prior")


def test_another_function_of_the_tokenizer_file_is_not_a_save() -> None:
    assert _top(SAVE_VOCAB.format(function="_batch_encode_plus")) != ("checkpoint-io", "family-prior")


# -- datasets building a split --------------------------------------------------------------------------------------------
SPLIT = ('Traceback (most recent call last):\n'
         '  File "/kaggle/working/alpaca-lora/finetune.py", line 187, in train\n'
         '    data = load_dataset("json", data_files=data_path)\n'
         '  File "/opt/conda/lib/python3.10/site-packages/datasets/load.py", line 1691, in load_dataset\n'
         "    builder_instance.download_and_prepare(\n"
         '  File "/opt/conda/lib/python3.10/site-packages/datasets/builder.py", line 605, in download_and_prepare\n'
         "    self._download_and_prepare(\n"
         '  File "/opt/conda/lib/python3.10/site-packages/datasets/builder.py", line 694, in _download_and_prepare\n'
         "    self._prepare_split(split_generator, **prepare_split_kwargs)\n"
         '  File "/opt/conda/lib/python3.10/site-packages/datasets/builder.py", line 1151, in {function}\n'
         "    for key, table in logging.tqdm(\n")


def test_a_traceback_cut_where_datasets_builds_the_split_is_training_data() -> None:
    # tloen/alpaca-lora#596: the excerpt stops inside _prepare_split
    assert _top(SPLIT.format(function="_prepare_split")) == ("training-data", "family-prior")


def test_a_cut_in_the_builders_download_step_is_not_this_rule() -> None:
    # (review43) mix43's `cut` rule answers this form training-data (luyug/Dense#6, a paste that stops there, is labelled
    # so; tests/test_priors_mix43.py): what this test holds is that the _prepare_split rule does not read the download
    # step (its `function`), so the frame that decided is download_and_prepare's, with the cut rule's reason
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.diagnose.document import diagnosis_document
    from kb.knowledge.registry import load_knowledge

    text = SPLIT.split('  File "/opt/conda/lib/python3.10/site-packages/datasets/builder.py", line 694')[0]
    doc = diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))
    evidence = [line for match in doc["matches"] for line in match["evidence"]]
    assert not any("building the dataset's split" in line for line in evidence), evidence


# -- TensorFlow's loader warning ---------------------------------------------------------------------------------------
TF_WARN = ("2021-05-26 13:59:44.057245: W tensorflow/stream_executor/platform/default/dso_loader.cc:60] Could not load "
           "dynamic library 'libcudart.so.11.0'; dlerror: libcudart.so.11.0: cannot open shared object file: No such "
           "file or directory\n"
           "2021-05-26 13:59:44.057287: I tensorflow/stream_executor/cuda/cudart_stub.cc:29] Ignore above cudart "
           "dlerror if you do not have a GPU set up on your machine.\n")


def test_tensorflows_own_loader_warning_is_not_the_runs_cuda_setup() -> None:
    # ROGERDJQ/RoBERTaABSA#2: TensorFlow, imported beside the run, has no CUDA libraries and says so
    assert _top(TF_WARN) is None


def test_a_torch_side_library_error_after_the_tensorflow_warning_still_answers() -> None:
    text = TF_WARN + ('Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n'
                      "    import bitsandbytes\n"
                      '  File "/usr/lib/python3.10/site-packages/bitsandbytes/cextension.py", line 20, in <module>\n'
                      "    lib = ct.cdll.LoadLibrary(binary_path)\n"
                      "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n")
    assert _top(text) == ("cuda-setup", "family-evidence")


def test_the_library_error_pasted_alone_still_answers() -> None:
    assert _top("OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory\n") == (
        "cuda-setup", "family-evidence")


@pytest.mark.parametrize("line", [
    "[E ProcessGroupNCCL.cpp:587] [Rank 1] Caught collective operation timeout: WorkNCCL(OpType=ALLREDUCE, "
    "Timeout(ms)=1800000) ran for 1806173 milliseconds before timing out.\n",
    "[rank1]:[E ProcessGroupNCCL.cpp:1537] [PG 0 Rank 1] Timeout at NCCL work: 12, last enqueued NCCL work: 12, "
    "last completed NCCL work: 11.\n",
])
def test_the_timeout_lines_are_follow_on_noise(line: str) -> None:
    # tables/noise.toml: a rank still waiting for one that failed; the failure, if any is shown, is the cause
    from kb.diagnose.diagnosis import diagnose_lines
    from kb.knowledge.registry import load_knowledge

    errors = diagnose_lines([line], load_knowledge()).errors
    assert [bool(e.noise) for e in errors] == [True]


# -- Apple silicon's GPU full -------------------------------------------------------------------------------------------
MPS_OOM = ("RuntimeError: MPS backend out of memory (MPS allocated: {allocated}, other allocations: 6.65 GB, max allowed: "
           "18.13 GB). Tried to allocate 375.40 MB on private pool. Use PYTORCH_MPS_HIGH_WATERMARK_RATIO=0.0 to disable "
           "upper limit for memory allocations (may cause system failure).\n")


@pytest.mark.parametrize("allocated", ["11.14 GB", "9.48 GiB"])
def test_the_mps_backend_out_of_memory_is_cuda_oom(allocated: str) -> None:
    # pytorch/pytorch#152351: a transformers Trainer run's backward on MPS (GB); mattmireles/gemma-tuner-multimodal#18
    # prints GiB
    text = ('  File "/opt/anaconda3/envs/huggingface/lib/python3.10/site-packages/accelerate/accelerator.py", line 1964,'
            ' in backward\n    loss.backward(**kwargs)\n' + MPS_OOM.format(allocated=allocated))
    assert _top(text) == ("cuda-oom", "family-evidence")


def test_the_mps_placeholder_error_is_not_an_oom() -> None:
    assert _top("RuntimeError: Placeholder storage has not been allocated on MPS device!\n") != (
        "cuda-oom", "family-evidence")
