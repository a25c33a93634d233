"""Priors (tables/priors.toml, kb/diagnose/priors.py): a family answer when no signature matched, from how the
process died, the root error's class or words, the stack frame that raised it, or a title's words; and silence
for errors of other software. The inputs are written in the form real logs and issue titles take; their
messages are new wordings on purpose (a signature's wording would be answered by the signature)."""

from __future__ import annotations

import re
import time

import pytest

from kb.diagnose.diagnosis import diagnose_lines
from kb.diagnose.document import diagnosis_document
from kb.diagnose.priors import BASES, MAX_PROCESS_LINES, TAIL_LINES
from kb.diagnose.stream import CHUNK_LINES
from kb.knowledge.model import KnowledgeError
from kb.knowledge.registry import load_knowledge
from kb.knowledge.tables import read_table, read_table_file
from kb.render.diagnosis import format_diagnosis

SP = "/home/ana/.venv/lib/python3.10/site-packages"


def doc(text: str) -> dict:
    return diagnosis_document(diagnose_lines(text.splitlines(keepends=True), load_knowledge()))


def top(text: str) -> tuple[str | None, str | None, str | None]:
    """(family, basis, confidence) of the first answer, or Nones."""
    matches = doc(text)["matches"]
    if not matches:
        return None, None, None
    m = matches[0]
    return m["family"], m["basis"], m["confidence"]


def tb(*frames: tuple[str, int, str, str], error: str) -> str:
    lines = ["Traceback (most recent call last):"]
    for file, line, function, code in frames:
        lines += [f'  File "{file}", line {line}, in {function}', f"    {code}"]
    return "\n".join([*lines, error]) + "\n"


USER = ("/home/ana/proj/train.py", 41, "<module>", "trainer.train()")
TRAINER = (f"{SP}/transformers/trainer.py", 2123, "train", "return inner_training_loop(")
MODULE = (f"{SP}/torch/nn/modules/module.py", 1553, "_call_impl", "return forward_call(*args, **kwargs)")


# ---- the table -------------------------------------------------------------------------------------------------

def test_every_rule_names_a_family_of_the_knowledge() -> None:
    families = {f.name for f in load_knowledge().families}
    table = read_table("priors")
    named = {rule["family"] for section in ("frame", "error", "process", "keyword") for rule in table[section]}
    assert named and named <= families, named - families


def test_a_table_with_an_unknown_key_or_a_bad_regex_is_refused(tmp_path) -> None:
    bad_key = tmp_path / "a.toml"
    bad_key.write_text('[[frame]]\nfile = "x"\nfamily = "hang"\nwhy = "w"\nweight = 2\n')
    with pytest.raises(KnowledgeError, match="unknown key 'weight'"):
        read_table_file(str(bad_key), "priors")
    bad_regex = tmp_path / "b.toml"
    bad_regex.write_text('[[process]]\nliterals = ["K"]\nline = "(Killed"\nfamily = "host-oom"\nwhy = "w"\n')
    with pytest.raises(KnowledgeError, match=r"process\[0\]\.line"):
        read_table_file(str(bad_regex), "priors")
    no_literal = tmp_path / "c.toml"
    no_literal.write_text('[[process]]\nliterals = []\nline = "Killed"\nfamily = "host-oom"\nwhy = "w"\n')
    with pytest.raises(KnowledgeError, match="literal"):
        read_table_file(str(no_literal), "priors")
    any_error = tmp_path / "d.toml"
    any_error.write_text('[[error]]\nfamily = "hang"\nwhy = "w"\n')
    with pytest.raises(KnowledgeError, match="neither types nor a message"):
        read_table_file(str(any_error), "priors")


# ---- process evidence ------------------------------------------------------------------------------------------

LOADING = "Loading checkpoint shards:  67%|██████▋   | 2/3 [00:41<00:20, 20.71s/it]\n"


@pytest.mark.parametrize("tail", [
    "Killed\n",
    "Killed: 9\n",
    "zsh: killed     python finetune.py --model meta-llama/Llama-2-13b-hf\n",
    "[1]+  Killed                  nohup python sft.py > sft.log\n",
])
def test_how_the_process_died_gives_host_oom(tail: str) -> None:
    family, basis, _ = top(LOADING + tail)
    assert (family, basis) == ("host-oom", "family-prior")


@pytest.mark.parametrize("tail", [
    "Process finished with exit code 137 (interrupted by signal 9: SIGKILL)\n",
    "srun: error: node-17: task 0: Exited with exit code 137\n",
])
def test_exit_code_137_is_host_oom_by_its_family_signatures(tail: str) -> None:
    """Turn 39 (err39): host-oom's exit-status-137 signature, which could never fire (kb check's `unread` rule), was
    restated as two readable signatures: these lines are the family's evidence now, not a prior's."""
    family, basis, _ = top(LOADING + tail)
    assert (family, basis) == ("host-oom", "family-evidence")


def test_process_evidence_says_which_line_decided() -> None:
    d = doc(LOADING + "Killed\n")
    m = d["matches"][0]
    assert m["evidence"][0].startswith("line 2: process evidence 'Killed'")
    assert m["signature"] == "prior:process" and m["discriminators"] == []
    assert m["error"]["line"] == 2 and "no signature" in m["why"]


def test_torchrun_failure_table_with_sigkill_is_host_oom() -> None:
    text = tb((f"{SP}/torch/distributed/run.py", 892, "main", "run(args)"),
              (f"{SP}/torch/distributed/launcher/api.py", 263, "launch_agent", "raise ChildFailedError("),
              error="torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ") + (
        "=======================================================\n"
        "sft.py FAILED\n-------------------------------------------------------\nFailures:\n  <NO_OTHER_FAILURES>\n"
        "-------------------------------------------------------\nRoot Cause (first observed failure):\n[0]:\n"
        "  time      : 2024-05-02_10:11:12\n  host      : gpu-3\n  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : -9 (pid: 52211)\n  error_file: <N/A>\n"
        "  traceback : Signal 9 (SIGKILL) received by PID 52211\n")
    assert top(text)[0] == "host-oom"


@pytest.mark.parametrize("text", [
    "W0502 10:11:12.000 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 52212 closing signal SIGKILL\n",
    "RuntimeError: DataLoader worker (pid 25902) is killed by signal: Segmentation fault.\n",
    "I killed the job by hand after an hour\n",
    "slurmstepd: error: *** JOB 4211 ON node-2 CANCELLED AT 2024-05-02T10:11:12 DUE TO TIME LIMIT *** signal 9\n",
])
def test_kills_that_are_not_the_oom_killer_are_not_host_oom(text: str) -> None:
    assert top(text)[0] != "host-oom"


def test_process_lines_are_read_in_bounded_time() -> None:
    """A million-line log where every line holds a process literal but none is evidence."""
    text = "step 1 of the killed-job list: 137 items, -9 offset\n" * (MAX_PROCESS_LINES * 40)
    start = time.process_time()
    diagnose_lines(text.splitlines(keepends=True), load_knowledge())
    assert time.process_time() - start < 6.0


# ---- exception classes and words -------------------------------------------------------------------------------

@pytest.mark.parametrize(("line", "family", "confidence"), [
    ("huggingface_hub.errors.GatedRepoError: Access to this checkpoint is awaiting review by its authors.",
     "hub-access", "medium"),
    ("huggingface_hub.utils._errors.RepositoryNotFoundError: the model id resolved to nothing (trace 8f1e)",
     "hub-access", "medium"),
    ("LocalEntryNotFoundError: snapshot folder incomplete for revision main", "hub-access", "medium"),
    ("huggingface_hub.utils._errors.HfHubHTTPError: 500 Server Error: Internal Server Error for url: "
     "https://huggingface.co/api/models/org/model", "hub-access", "low"),
    ("safetensors_rust.SafetensorError: File does not contain tensor lm_head.weight", "checkpoint-io", "medium"),
    ("torch.OutOfMemoryError: allocator could not satisfy a 2.00 GiB block on device 0", "cuda-oom", "medium"),
    ("torch.distributed.DistBackendError: backend reported failure on rank 3 during allgather", "multi-gpu-launch",
     "low"),
    ("RuntimeError: NCCL could not register the user buffer for rank 2", "multi-gpu-launch", "low"),
])
def test_a_library_exception_class_or_word_names_its_family(line: str, family: str, confidence: str) -> None:
    assert top(line + "\n") == (family, "family-prior", confidence)


def test_the_evidence_names_the_class() -> None:
    m = doc("huggingface_hub.errors.GatedRepoError: Access to this checkpoint is awaiting review.\n")["matches"][0]
    assert "exception class huggingface_hub.errors.GatedRepoError" in m["evidence"][0]


def test_a_bare_childfailederror_has_no_family() -> None:
    """torchrun's summary alone (exit code 1: the worker raised, its traceback is not in the log)."""
    text = tb((f"{SP}/torch/distributed/run.py", 806, "main", "run(args)"),
              (f"{SP}/torch/distributed/launcher/api.py", 264, "launch_agent", "raise ChildFailedError("),
              error="torch.distributed.elastic.multiprocessing.errors.ChildFailedError: ") + (
        "============================================================\ntrain.py FAILED\n"
        "Root Cause (first observed failure):\n[0]:\n  rank      : 0 (local_rank: 0)\n"
        "  exitcode  : 1 (pid: 3312)\n")
    assert doc(text)["matches"] == []


def test_a_signature_match_leaves_the_priors_out() -> None:
    text = "Killed\nRuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n"
    matches = doc(text)["matches"]
    assert matches and all(m["basis"] in ("case", "family-evidence") for m in matches)


# ---- frames ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("frame", "error", "family"), [
    ((f"{SP}/bitsandbytes/cextension.py", 31, "<module>", "lib = get_native_library()"),
     "RuntimeError: native library handle was not created for this platform", "cuda-setup"),
    ((f"{SP}/bitsandbytes/cuda_setup/main.py", 167, "evaluate_cuda_setup", "raise RuntimeError(msg)"),
     "RuntimeError: no usable runtime found in the search path", "cuda-setup"),
    ((f"{SP}/torch/cuda/__init__.py", 314, "_lazy_init", "torch._C._cuda_init()"),
     "RuntimeError: unexpected status 999 from the device layer", "cuda-setup"),
    ((f"{SP}/huggingface_hub/utils/_http.py", 409, "hf_raise_for_status", "raise _format(HfHubHTTPError, msg, response)"),
     "OSError: request rejected by the proxy (code 451)", "hub-access"),
    ((f"{SP}/safetensors/torch.py", 311, "load_file", "result[k] = f.get_tensor(k)"),
     "OSError: [Errno 5] Input/output error", "checkpoint-io"),
    ((f"{SP}/torch/serialization.py", 1025, "load", "return _load(opened_zipfile,"),
     "RuntimeError: storage has wrong byte size: expected 4 got 0", "checkpoint-io"),
    ((f"{SP}/accelerate/utils/modeling.py", 348, "set_module_tensor_to_device",
      "raise ValueError(f'{tensor_name} is on the meta device')"),
     "ValueError: lm_head.weight has no value to load on 0", "checkpoint-io"),
    ((f"{SP}/deepspeed/runtime/zero/stage3.py", 1190, "defragment", "assert len(set(t.dtype for t in tensors)) == 1"),
     "AssertionError", "sharding-config"),
    ((f"{SP}/torch/distributed/rendezvous.py", 172, "_create_c10d_store", "return TCPStore("),
     "RuntimeError: connection to 10.0.0.4:29500 refused after 3 retries", "multi-gpu-launch"),
])
def test_the_stack_frame_that_raised_names_its_family(frame: tuple, error: str, family: str) -> None:
    text = tb(USER, TRAINER, MODULE, frame, error=error)
    m = doc(text)["matches"][0]
    assert (m["family"], m["basis"], m["confidence"]) == (family, "family-prior", "low")
    assert m["evidence"][0].startswith("frame ")  # the path is redacted (/home/~/...): its end says where
    assert f"{frame[0].split('site-packages/')[1]}:{frame[1]} in {frame[2]} decided it" in m["evidence"][0]


def test_wrapper_frames_are_passed_over_and_the_walk_stops_at_user_code() -> None:
    zero = (f"{SP}/deepspeed/runtime/zero/parameter_offload.py", 232, "_pre_forward_module_hook", "self.pre_sub_module_forward_function(module)")
    hooks = (f"{SP}/accelerate/hooks.py", 170, "new_forward", "output = module._old_forward(*args, **kwargs)")
    collate = ("/home/ana/proj/data.py", 12, "collate", "return torch.stack(batch)")
    # raised below the wrappers, in ZeRO: ZeRO decides
    assert top(tb(USER, TRAINER, zero, MODULE, hooks, error="RuntimeError: handle 7 was never released"))[0] == "sharding-config"
    # raised in the user's collate function under the Trainer and ZeRO: no prior (the user's code raised it)
    assert doc(tb(USER, TRAINER, zero, collate, error="RuntimeError: handle 7 was never released"))["matches"] == []


def test_accelerate_launch_is_passed_to_reach_the_childs_error() -> None:
    child = tb(USER, TRAINER, (f"{SP}/deepspeed/runtime/zero/partition_parameters.py", 1512, "_allgather_params",
                               "assert param.ds_status == ZeroParamStatus.NOT_AVAILABLE"),
               error="AssertionError: param 118 is in flight")
    launcher = tb(("/home/ana/.venv/bin/accelerate", 8, "<module>", "sys.exit(main())"),
                  (f"{SP}/accelerate/commands/launch.py", 1097, "launch_command", "simple_launcher(args)"),
                  (f"{SP}/accelerate/commands/launch.py", 703, "simple_launcher",
                   "raise subprocess.CalledProcessError(returncode=process.returncode, cmd=cmd)"),
                  error="subprocess.CalledProcessError: Command '['/usr/bin/python', 'train.py']' returned non-zero exit status 1.")
    d = doc(child + launcher)
    assert d["root_error"]["type"] == "AssertionError"
    assert d["matches"][0]["family"] == "sharding-config"


# ---- keywords of titles and prose ------------------------------------------------------------------------------

@pytest.mark.parametrize(("title", "family"), [
    ("stuck at 0%", "hang"),
    ("Training hangs after the first epoch with 4 GPUs", "hang"),
    ("OOM with 7B on 2xT4", "cuda-oom"),
    ("Pytorch Train error ; Cuda error: device-side assert triggered", "device-side-assert"),
    ("training process gets killed while loading the 13B checkpoint", "host-oom"),
    ("System RAM runs out during tokenization of a 20GB dataset", "host-oom"),
    ("torch.cuda.is_available() returns False inside the container", "cuda-setup"),
    ("loss is nan", "loss-nan"),
])
def test_a_title_names_its_family_with_low_confidence(title: str, family: str) -> None:
    assert top(title + "\n") == (family, "family-keyword", "low")


@pytest.mark.parametrize("title", [
    "YOLOv8 loss is nan after a few epochs",  # a detector's NaN loss: other software
    "AutoTrain Space stuck on Building",  # a build, not a run
    "How do I choose the LoRA rank for a 7B model?",
    "cc1plus: out of memory allocating 65536 bytes",
])
def test_titles_without_a_family_stay_silent(title: str) -> None:
    assert doc(title + "\n")["matches"] == []


def test_keywords_read_only_the_first_lines_of_a_report() -> None:
    text = "Fine-tuning Llama with LoRA\n\nconfig below\n" + "lr: 2e-4\n" * 5 + "the GPU is out of memory sometimes\n"
    assert doc(text)["matches"] == []


# ---- other software stays unanswered ---------------------------------------------------------------------------

DJANGO = tb(("/srv/app/manage.py", 22, "<module>", "main()"),
            ("/srv/venv/lib/python3.11/site-packages/django/core/handlers/exception.py", 55, "inner", "response = get_response(request)"),
            ("/srv/venv/lib/python3.11/site-packages/django/db/backends/utils.py", 89, "_execute", "return self.cursor.execute(sql, params)"),
            error="django.db.utils.OperationalError: could not connect to server: Connection refused")
NUMPY = tb(("/home/bo/stats.py", 9, "<module>", "z = a + b"),
           error="ValueError: operands could not be broadcast together with shapes (3,4) (5,)")
PANDAS = tb(("/home/bo/report.py", 14, "<module>", "df['price']"),
            ("/usr/lib/python3/dist-packages/pandas/core/frame.py", 3761, "__getitem__", "indexer = self.columns.get_loc(key)"),
            ("/usr/lib/python3/dist-packages/pandas/core/indexes/base.py", 3655, "get_loc", "raise KeyError(key) from err"),
            error="KeyError: 'price'")
REQUESTS = tb(("/home/bo/fetch.py", 5, "<module>", "requests.get(url, timeout=3)"),
              ("/usr/local/lib/python3.12/site-packages/requests/adapters.py", 700, "send", "raise ConnectTimeout(e, request=request)"),
              error="requests.exceptions.ConnectTimeout: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded")
NUMPY_MEMORY = tb(("/home/bo/big.py", 3, "<module>", "np.zeros((100000, 100000))"),
                  error="numpy.core._exceptions.MemoryError: cannot grow the buffer")
CPP = ("main.cpp: In function 'int main()':\n"
       "main.cpp:5:5: error: 'foo' was not declared in this scope\n    5 |     foo();\n      |     ^~~\n"
       "make: *** [Makefile:3: main] Error 1\n")
JS = ("TypeError: Cannot read properties of undefined (reading 'map')\n"
      "    at renderList (/app/src/List.js:12:18)\n    at Object.<anonymous> (/app/src/index.js:40:3)\n"
      "    at Module._compile (node:internal/modules/cjs/loader:1105:14)\n")
SO = "ImportError: /usr/lib/python3/dist-packages/psycopg2/_psycopg.cpython-310-x86_64-linux-gnu.so: undefined symbol: PQconninfo\n"


@pytest.mark.parametrize("text", [DJANGO, NUMPY, PANDAS, REQUESTS, NUMPY_MEMORY, CPP, JS, SO],
                         ids=["django", "numpy", "pandas", "requests", "numpy-memory", "c++", "js", "other-so"])
def test_errors_of_other_software_stay_unanswered(text: str) -> None:
    assert doc(text)["matches"] == []


# ---- environment and ABI errors (signatures of families/cuda-setup.md) ----------------------------------------

@pytest.mark.parametrize("line", [
    "OSError: libcudart.so.11.0: cannot open shared object file: No such file or directory",
    "ImportError: libcudnn.so.8: cannot open shared object file: No such file or directory",
    f"ImportError: {SP}/torch/lib/libtorch_cuda.so: undefined symbol: ncclCommRegister",
    'OSError: [WinError 126] The specified module could not be found. Error loading "C:\\Python311\\Lib\\site-packages'
    '\\torch\\lib\\cudnn_adv_infer64_8.dll" or one of its dependencies.',
    "RuntimeError: HIP error: invalid device function",
    "rocBLAS error: hipErrorNoBinaryForGpu: Unable to find code object for all current devices!",
    "RuntimeError: The MPS backend is supported on MacOS 12.3+.Current OS version can be queried using `sw_vers`",
    "NotImplementedError: The operator 'aten::_linalg_eigh' is not currently implemented for the MPS device.",
    "RuntimeError: CUDA driver version is insufficient for CUDA runtime version",
    "RuntimeError: CUDA error: no kernel image is available for execution on the device",
])
def test_environment_and_abi_errors_are_cuda_setup(line: str) -> None:
    family, basis, _ = top(line + "\n")
    assert (family, basis) == ("cuda-setup", "family-evidence")


# ---- the basis in the document, and the text ---------------------------------------------------------------------

def test_every_answer_has_a_basis_and_priors_never_outrank_evidence() -> None:
    texts = ["RuntimeError: expected mat1 and mat2 to have the same dtype, but got: double != float\n",
             "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB\n", LOADING + "Killed\n", "stuck at 0%\n"]
    seen = set()
    for text in texts:
        bases = [m["basis"] for m in doc(text)["matches"]]
        assert bases and all(b in BASES for b in bases)
        assert [BASES.index(b) for b in bases] == sorted(BASES.index(b) for b in bases)
        seen.update(bases)
    assert {"family-evidence", "family-prior", "family-keyword"} <= seen


def test_the_text_says_what_decided_a_prior() -> None:
    text = format_diagnosis(doc(tb(USER, TRAINER, (f"{SP}/bitsandbytes/cextension.py", 31, "<module>", "lib = x()"),
                                   error="RuntimeError: native library handle was not created")), width=200)
    assert "family cuda-setup  low confidence" in text
    assert re.search(r"decided by: frame .*bitsandbytes/cextension\.py:31 in <module> decided it", text)
    assert "message signature" not in text


def test_a_collective_called_by_deepspeed_zero_is_sharding_config_not_the_launch() -> None:
    """torch.distributed's frame yields to a DeepSpeed ZeRO frame further out in the same stack."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 40, in <module>\n'
        "    engine.step()\n"
        '  File "/usr/lib/python3.11/site-packages/deepspeed/runtime/zero/stage_1_and_2.py", line 1846, in step\n'
        "    self._allgather(...)\n"
        '  File "/usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3040, in all_gather_into_tensor\n'
        "    work = group._allgather_base(output_tensor, input_tensor, opts)\n"
        "RuntimeError: output tensor must have the same type as input tensor\n"
    )
    answers = diagnose_lines(text.splitlines(keepends=True), load_knowledge()).answers
    assert answers and answers[0].match.entry.key == "sharding-config"
    alone = text.replace('  File "/usr/lib/python3.11/site-packages/deepspeed/runtime/zero/stage_1_and_2.py", line 1846, in step\n'
                         "    self._allgather(...)\n", "")
    answers = diagnose_lines(alone.splitlines(keepends=True), load_knowledge()).answers
    assert answers and answers[0].match.entry.key == "multi-gpu-launch"


# ---- error signals of issue #24's silent reports: NCCL's own lines, the Hub's reachability, bitsandbytes' C code,
# ---- the checkpoint code of the wrappers, a notebook traceback cut above its first frame ---------------------------

@pytest.mark.parametrize(("text", "family"), [
    # NCCL's own warning lines and no Python error after them
    ("gpu7:2211:2290 [3] transport/p2p.cc:274 NCCL WARN Cuda failure 'peer access is not supported between these two devices'\n"
     "gpu7:2211:2290 [3] NCCL INFO init.cc:1012 -> 1\n", "multi-gpu-launch"),
    # datasets' download code cannot reach the file's host
    ("ConnectionError: Couldn't reach https://huggingface.co/datasets/org/corpus/resolve/main/README.md (ReadTimeout)\n",
     "hub-access"),
    # bitsandbytes' C code reports the CUDA call that failed, without a Python exception
    ("Error invalid device function at line 112 in file /src/bitsandbytes/csrc/kernels.cu\n", "cuda-setup"),
    # bitsandbytes' CUDA setup searching the paths for a runtime it could not load
    ("The directory listed in your path is found to be non-existent: /opt/modules/cuda/12.1/lib\n"
     "The directory listed in your path is found to be non-existent: //10.1.2.3\n", "cuda-setup"),
])
def test_signals_of_the_stacks_own_output_name_their_family(text: str, family: str) -> None:
    assert top(text) == (family, "family-prior", "low")


def test_other_softwares_connection_errors_and_c_errors_stay_unanswered() -> None:
    assert doc("ConnectionError: HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded\n")["matches"] == []
    assert doc("Error out of memory at line 88 in file /src/myrenderer/csrc/alloc.cu\n")["matches"] == []


@pytest.mark.parametrize(("frame", "error"), [
    ((f"{SP}/accelerate/accelerator.py", 3156, "load_state", 'self.step = override_attributes["step"]'), "KeyError: 'step'"),
    ((f"{SP}/transformers/trainer.py", 2301, "_load_from_checkpoint", "raise ValueError(f'Can't find a valid checkpoint at {x}')"),
     "ValueError: nothing usable under output/checkpoint-500"),
])
def test_a_wrappers_checkpoint_function_decides_where_the_error_was_raised_in_it(frame: tuple, error: str) -> None:
    m = doc(tb(USER, frame, error=error))["matches"][0]
    assert (m["family"], m["basis"]) == ("checkpoint-io", "family-prior")
    assert f"in {frame[2]} decided it" in m["evidence"][0]


def test_a_wrappers_other_functions_are_still_passed_over() -> None:
    backward = (f"{SP}/accelerate/accelerator.py", 2151, "backward", "loss.backward(**kwargs)")
    assert doc(tb(USER, backward, error="KeyError: 'step'"))["matches"] == []


def test_a_notebook_traceback_pasted_from_its_arrow_line_keeps_its_class() -> None:
    """IPython's header names the class; the cell's "Cell In[n], line k" was not pasted, and the message was cut off."""
    text = ("SafetensorError                           Traceback (most recent call last)\n"
            "----> 4 model = AutoModelForCausalLM.from_pretrained(out_dir, use_safetensors=True)\n\n"
            f"File {SP}/transformers/modeling_utils.py:3301, in PreTrainedModel.from_pretrained(cls, name, *args, **kwargs)\n")
    d = doc(text)
    assert d["root_error"]["type"] == "SafetensorError"
    assert (d["matches"][0]["family"], d["matches"][0]["basis"]) == ("checkpoint-io", "family-prior")


@pytest.mark.parametrize(("text", "family"), [
    # pip's build folder of a stack extension in the traceback of its failed setup.py
    ('  Traceback (most recent call last):\n    File "<string>", line 2, in <module>\n'
     '    File "/tmp/pip-install-a81kq2/xformers_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f/setup.py", line 402, in <module>\n'
     '      setup(\n', "package-install"),
    # torch's C++ frames name DDP's reducer, or NCCL's process group
    ("RuntimeError: something went wrong in the backward hook\n"
     "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x42 (0x7f in /x/torch/lib/libc10.so)\n"
     "frame #1: c10d::Reducer::autograd_hook(unsigned long) + 0x1a4 (0x7f in /x/torch/lib/libtorch_cpu.so)\n",
     "ddp-reducer"),
    ("terminate called after throwing an instance of 'c10::Error'\n"
     "frame #2: c10d::ProcessGroupNCCL::WorkNCCL::finishedGPUExecutionInternal() const + 0x80 (0x7f in libtorch_cuda.so)\n",
     "multi-gpu-launch"),
    # datasets' loader: a name neither on disk nor on the Hub, inside a cloud job's error
    ("JobError: UserScriptFailed ExitCode 1 \"FileNotFoundError: Dataset 'acme/tickets' doesn't exist on the Hub\"\n",
     "hub-access"),
])
def test_build_folders_cpp_frames_and_loader_messages_name_their_family(text: str, family: str) -> None:
    assert top(text)[:2] == (family, "family-prior")


def test_a_keyerror_in_the_data_pipeline_is_training_data_and_other_errors_there_are_not() -> None:
    loader = (f"{SP}/accelerate/data_loader.py", 552, "__iter__", "current_batch = next(dataloader_iter)")
    fetch = (f"{SP}/torch/utils/data/_utils/fetch.py", 51, "fetch", "data = [self.dataset[idx] for idx in possibly_batched_index]")
    formatting = (f"{SP}/datasets/formatting/formatting.py", 521, "_query_table", "pa_subtable = table.column(key)")
    for frames in ((loader, fetch), (formatting,)):  # torch's frames passed over to accelerate's further out
        assert top(tb(USER, TRAINER, *frames, error="KeyError: 'instruction'"))[:2] == ("training-data", "family-prior")
    # the same frames, another error: not the dataset's missing column
    assert doc(tb(USER, TRAINER, loader, fetch, error="RuntimeError: pin memory thread exited unexpectedly"))["matches"] == []
    # torch's DataLoader alone is every PyTorch project's: a KeyError there is not claimed
    assert doc(tb(("/home/bo/seg/train.py", 80, "<module>", "for batch in loader:"), fetch,
                  error="KeyError: 'mask_path'"))["matches"] == []


def test_formatting_rows_with_the_chat_template_is_training_data() -> None:
    frame = (f"{SP}/trl/extras/dataset_formatting.py", 47, "format_dataset",
             "return tokenizer.apply_chat_template(examples[messages_field], tokenize=False)")
    m = doc(tb(USER, TRAINER, frame, error="ValueError: template slot 'system' has no value"))["matches"][0]
    assert (m["family"], m["basis"]) == ("training-data", "family-prior")


def test_lines_of_a_rule_that_already_holds_do_not_hide_a_later_kill() -> None:
    """A build log naming pip's build folder's setup.py on every line, then the OOM killer: the lines after the
    first that the build rule holds for do not spend the budget of lines read, so the "Killed" is still found."""
    build = ('  File "/tmp/pip-install-q1/flash-attn_0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f/setup.py", line 9, in <module>\n'
             * (MAX_PROCESS_LINES + 500))
    assert top(build + "Killed\n")[0] == "host-oom"


# (turn 44) a long log's numbers ("step 137", "loss 2.137": the literals of the exit-code rule) spent the budget of lines
# read in its first lines, and a "Killed" at its end went unread
STEPS = "".join(f"2025-11-21 10:00:{i % 60:02d},123 - INFO - trainer - step {i} loss 2.137 grad_norm 1.41\n"
                for i in range(MAX_PROCESS_LINES + 1500))


@pytest.mark.parametrize("after", [0, 1, TAIL_LINES - 2])
def test_a_kill_at_the_end_of_a_long_log_of_numbers_is_read(after: int) -> None:
    assert top(STEPS + "Killed\n" + "cleanup\n" * after)[:2] == ("host-oom", "family-prior")


def test_a_kill_in_the_last_lines_is_read_across_chunks() -> None:
    """The last lines span two chunks (kb/diagnose/stream.py CHUNK_LINES lines each): the kill is in the one before the
    last, which holds 40 lines."""
    after = 100
    steps = STEPS.splitlines(keepends=True)
    filler = (steps * 4)[:3 * CHUNK_LINES + 40 - after - 1]
    text = "".join(filler) + "Killed\n" + "cleanup\n" * after
    assert len(text.splitlines()) % CHUNK_LINES == 40
    assert top(text)[:2] == ("host-oom", "family-prior")


def test_a_kill_before_the_last_lines_of_a_long_log_of_numbers_stays_unread() -> None:
    """What the budget and the last lines bound: a kill in between is not read (a process dies at its log's end)."""
    assert top(STEPS + "Killed\n" + "cleanup\n" * (TAIL_LINES + 50))[0] != "host-oom"


@pytest.mark.parametrize(("reason", "family"), [("Error", None), ("OOMKilled", "host-oom")])
def test_the_last_lines_read_the_line_before_them_for_a_rule_that_looks_back(reason: str, family: str | None) -> None:
    """kubectl's ``Reason:`` just above the last lines' first, ``Exit Code: 137``: the rule's ``excludes_before`` reads
    it there too."""
    text = STEPS + f"    Reason:       {reason}\n    Exit Code:    137\n" + "cleanup\n" * (TAIL_LINES - 1)
    found = top(text)[0]
    assert (found == "host-oom") == (family == "host-oom"), found


def test_a_traceback_cut_off_before_its_error_leaves_only_the_quoted_words_to_decide() -> None:
    """A forum post quotes the error in a sentence and pastes a traceback that stops before its exception line:
    the quoted words decide, as in a prose report. A log line's words before such a traceback (no quotes) do not."""
    cut = (f'Traceback (most recent call last):\n  File "{SP}/peft/tuners/tuners_utils.py", line 205, in inject_adapter\n'
           f"    peft_config = self._prepare_adapter_config(peft_config, model_config)\n  File \"{SP}/peft/tun")
    quoted = 'Training stopped with the error "Please specify target_modules in peft_config" on my model\n\n' + cut
    assert top(quoted)[:2] == ("adapter-config", "family-keyword")
    unquoted = "12:00:01 INFO     Creating LoRA model\nRunning in WANDB offline mode\n" + cut
    assert top(unquoted) == (None, None, None)
