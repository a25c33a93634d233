"""The priors of tables/priors.toml's famD block (issue #24, turn 35: sharding-config, multi-gpu-launch, hang, host-oom,
training-data, cuda-oom, loss-nan, model-unsupported). Each rule is checked on the forms real reports take (the corpus's
lines where one fired on it, otherwise written here in the library's wording) and on near forms that must stay
unclaimed: another program's error of the same class, the same words in another meaning. The learned fallback is left
out: these tests look at what the rules answer."""

from __future__ import annotations

import pytest
from rules_support import top

SP = "/home/ana/.venv/lib/python3.10/site-packages"


def _trace(frames: list[tuple[str, str]], last: str) -> str:
    """A traceback through ``frames`` (file under site-packages, or a user's file when it starts with /), ending ``last``."""
    lines = ["Traceback (most recent call last):\n",
             '  File "/home/ana/proj/train.py", line 40, in <module>\n', "    main()\n"]
    for file, function in frames:
        path = file if file.startswith("/") else f"{SP}/{file}"
        lines += [f'  File "{path}", line 120, in {function}\n', "    x = f(y)\n"]
    return "".join(lines) + last + "\n"


def _not(text: str, family: str) -> None:
    got = top(text)
    assert got is None or got[0] != family, got


# ---- training-data ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "NameError: name 'processor' is not defined\n",  # huggingface/datasets #6789, pasted alone
    '{\n\t"name": "NameError",\n\t"message": "name \'tokenizer\' is not defined",\n',  # transformers #31545 (VS Code's JSON)
    "NameError: name 'tokenized_datasets' is not defined\n",
])
def test_a_nameerror_for_the_tokenizer_is_training_data(text: str) -> None:
    assert top(text) == ("training-data", "family-prior")


@pytest.mark.parametrize("text", [
    "NameError: name 'np' is not defined\n",
    "NameError: name 'model' is not defined\n",
    "NameError: name 'flash_attn_varlen_func' is not defined\n",  # a missing kernel import, not the data
])
def test_other_nameerrors_are_not_training_data(text: str) -> None:
    _not(text, "training-data")


def test_a_tokenizer_nameerror_under_another_librarys_code_is_not_claimed() -> None:
    _not(_trace([("mylib/tokenize.py", "run")], "NameError: name 'tokenizer' is not defined"), "training-data")


@pytest.mark.parametrize("line", [
    "ValueError: text input must be of type `str` (single example), `List[str]` (batch or single pretokenized example) "
    "or `List[List[str]]` (batch of pretokenized examples).",
    "TypeError: TextEncodeInput must be Union[TextInputSequence, Tuple[InputSequence, InputSequence]]",
    "AssertionError: Cannot handle batch sizes > 1 if no padding token is defined.",
    "datasets.exceptions.DatasetGenerationError: An error occurred while generating the dataset",
    "datasets.exceptions.DatasetGenerationCastError: An error occurred while generating the dataset",
    "datasets.data_files.EmptyDatasetError: The directory at /data/sft doesn't contain any data files",
    "pyarrow.lib.ArrowTypeError: Expected bytes, got a 'int' object",
    "FileNotFoundError: Unable to find '/data/alpaca/train.json'",
])
def test_the_data_pipelines_own_errors_are_training_data(line: str) -> None:
    assert top(line + "\n") in {("training-data", "family-prior"), ("training-data", "family-evidence")}


def test_a_pyarrow_error_raised_under_pandas_is_not_claimed() -> None:
    _not(_trace([("pandas/io/parquet.py", "read")], "pyarrow.lib.ArrowInvalid: Could not open Parquet input source"),
         "training-data")


@pytest.mark.parametrize("text", [
    "FileNotFoundError: [Errno 2] No such file or directory: '/data/train.json'",  # not datasets' resolution
    "ValueError: text must not be empty",
    "TypeError: expected str, bytes or os.PathLike object, not NoneType",
])
def test_near_data_wordings_are_not_claimed(text: str) -> None:
    _not(text + "\n", "training-data")


@pytest.mark.parametrize(("frames", "last"), [
    ([("datasets/arrow_dataset.py", "wrapper"), ("datasets/arrow_dataset.py", "remove_columns")],
     "ValueError: Column name ['text'] not in the dataset."),
    ([("transformers/trainer.py", "train"), ("transformers/trainer.py", "_inner_training_loop"),
      ("accelerate/data_loader.py", "__iter__"), ("torch/utils/data/dataloader.py", "__next__"),
      ("transformers/data/data_collator.py", "__call__")],
     "TypeError: object of type 'NoneType' has no len()"),
    ([("trl/trainer/sft_trainer.py", "__init__"), ("trl/trainer/sft_trainer.py", "_prepare_dataset")],
     "ValueError: You passed a dataset with no 'text' field"),
    ([("datasets/load.py", "load_dataset"), ("datasets/builder.py", "_prepare_split"),
      ("datasets/packaged_modules/json/json.py", "_generate_tables")],
     "ValueError: Not able to read records in the JSON file at /data/sft/train.json."),
    ([("datasets/arrow_dataset.py", "map"), ("datasets/arrow_dataset.py", "_map_single"),
      ("datasets/arrow_writer.py", "write_batch")],
     "pyarrow.lib.ArrowInvalid: Failed to parse string: 'abc' as a scalar of type int64"),
])
def test_data_pipeline_frames_are_training_data(frames: list[tuple[str, str]], last: str) -> None:
    assert top(_trace(frames, last)) in {("training-data", "family-prior"), ("training-data", "family-evidence")}


def test_the_users_function_under_map_is_not_read_as_datasets() -> None:
    # map calls the user's function, which raised: the walk stops there, datasets' frames further out do not decide
    text = _trace([("datasets/arrow_dataset.py", "map"), ("datasets/arrow_dataset.py", "_map_single"),
                   ("/home/ana/proj/prep.py", "tokenize_fn")], "ValueError: bad prompt template")
    assert top(text) is None


# ---- sharding-config --------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "AttributeError: 'DeepSpeedEngine' object has no attribute 'generate'",
    "AttributeError: 'FullyShardedDataParallel' object has no attribute 'config'",
    "AssertionError: Micro batch size per gpu: 0 has to be greater than 0",
    "AssertionError: no_sync context manager is incompatible with gradient partitioning logic of ZeRO stage 3",
    "ValueError: FSDP auto wrapping requires modules to not have a mix of frozen and trainable parameters",
])
def test_sharding_wrappers_and_config_errors_are_sharding_config(line: str) -> None:
    assert top(line + "\n") in {("sharding-config", "family-prior"), ("sharding-config", "family-evidence")}


@pytest.mark.parametrize("line", [
    "AttributeError: 'LlamaForCausalLM' object has no attribute 'generate_stream'",
    "ImportError: FSDP is not available in this torch build",  # how the stack is installed
    "RuntimeError: FSDP requires PyTorch >= 2.1.0",  # a release too old
    "RuntimeError: Error(s) in loading state_dict for FSDP: Missing key(s)",  # a checkpoint: checkpoint-io's
    "ValueError: zero-shot classification requires at least one label",  # 'zero' in another meaning
    # deepspeed 0.15's pydantic 2 refusing the float an older transformers writes: api-drift's (the dev set's
    # drift-36-DeepSpeed-6525)
    "pydantic_core._pydantic_core.ValidationError: 1 validation error for DeepSpeedZeroConfig",
])
def test_near_sharding_wordings_are_not_claimed(line: str) -> None:
    _not(line + "\n", "sharding-config")


def test_the_sharding_word_must_be_on_the_errors_first_line() -> None:
    # transformers #26019: the line of code quoted after the message names FSDP; the error itself does not
    text = ("UnboundLocalError: local variable 'unwrapped_model' referenced before assignment\n"
            "    is_type_fsdp = (type(obj) == FSDP) or isinstance(unwrapped_model, FSDP)\n")
    _not(text, "sharding-config")


@pytest.mark.parametrize(("frames", "last"), [
    ([("accelerate/accelerator.py", "prepare"), ("accelerate/accelerator.py", "_prepare_deepspeed"),
      ("accelerate/utils/dataclasses.py", "deepspeed_config_process"), ("accelerate/utils/dataclasses.py", "fill_match")],
     "ValueError: Please correct the following DeepSpeed config values that mismatch kwargs"),
    ([("transformers/trainer.py", "train"), ("transformers/integrations/fsdp.py", "get_fsdp_ckpt_kwargs")],
     "TypeError: unsupported operand type(s)"),
    ([("deepspeed/__init__.py", "initialize")], "AssertionError: model must be a torch.nn.Module"),
])
def test_sharding_setup_frames_are_sharding_config(frames: list[tuple[str, str]], last: str) -> None:
    assert top(_trace(frames, last)) == ("sharding-config", "family-prior")


# ---- multi-gpu-launch -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line", [
    "torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError",
    "torch.distributed.elastic.rendezvous.api.RendezvousConnectionError: The connection to the C10d store has failed.",
    "RuntimeError: [/opt/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:598] Connection closed by peer [10.0.0.2]:4567",
    "RuntimeError: Gloo connectFullMesh failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error",
])
def test_rendezvous_and_store_failures_are_multi_gpu_launch(line: str) -> None:
    assert top(line + "\n") == ("multi-gpu-launch", "family-prior")


def test_envs_missing_launcher_variables_is_not_claimed() -> None:
    # huggingface/finetrainers #315 (a diffusion trainer, out of scope) says it too
    _not("ValueError: Error initializing torch.distributed using env:// rendezvous: environment variable RANK "
         "expected, but not set\n", "multi-gpu-launch")


# ---- host-oom ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "OSError: [WinError 1455] The paging file is too small for this operation to complete. Error loading "
    '"C:\\venv\\lib\\site-packages\\torch\\lib\\cudnn_cnn_infer64_8.dll" or one of its dependencies.\n',
    "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\nAborted (core dumped)\n",
    "Last State: Terminated\n  Reason: OOMKilled\n  Exit Code: 137\n",
    # (turn 39) the kernel's death is host-oom where the report names the stack or a run (needs_context)
    "trainer.train()\nThe kernel appears to have died. It will restart automatically.\n",
])
def test_the_machines_ram_running_out_is_host_oom(text: str) -> None:
    assert top(text) in {("host-oom", "family-prior"), ("host-oom", "family-evidence")}


@pytest.mark.parametrize("text", [
    "OSError: [WinError 126] The specified module could not be found.\n",
    "The kernel is busy\n",
    "The kernel appears to have died. It will restart automatically.\n",  # every notebook's (turn 39: needs_context)
    "RuntimeError: OOM killer settings are not available in this container\n",
])
def test_near_ram_wordings_are_not_host_oom(text: str) -> None:
    _not(text, "host-oom")


def test_a_bare_memoryerror_is_not_claimed() -> None:
    # any program's allocation (numpy's in a user's script: tests/test_diagnose_priors.py); famA's frame rule answers
    # a MemoryError raised in the stack's own code
    _not("MemoryError\n", "host-oom")


# ---- cuda-oom ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text", [
    "Tried to allocate 2.00 GiB (GPU 0; 23.65 GiB total capacity; 20.1 GiB already allocated; 1.2 GiB free)\n",
    "of which 10.25 MiB is free. 23.27 GiB reserved in total by PyTorch\n",
    "CUDA_ERROR_OUT_OF_MEMORY: out of memory\n",
    "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing "
    "the engine.\n",
])
def test_fragments_of_gpu_out_of_memory_are_cuda_oom(text: str) -> None:
    assert top(text) in {("cuda-oom", "family-prior"), ("cuda-oom", "family-evidence")}


def test_a_cpu_allocation_is_not_cuda_oom() -> None:
    _not("RuntimeError: [enforce fail at alloc_cpu.cpp:83] DefaultCPUAllocator: can't allocate memory: you tried to "
         "allocate 1073741824 bytes.\n", "cuda-oom")
    _not("Tried to allocate 4.00 GiB of host RAM for the dataset cache\n", "cuda-oom")


# ---- hang, loss-nan, model-unsupported ----------------------------------------------------------------------------

def test_a_py_spy_dump_is_hang() -> None:
    text = ('Process 4117: python train.py\nPython v3.10.12 (/usr/bin/python3.10)\n\n'
            'Thread 4117 (idle): "MainThread"\n    wait (threading.py:320)\n    barrier (torch/distributed/distributed_c10d.py:3685)\n')
    assert top(text) == ("hang", "family-prior")


def test_a_thread_listing_that_is_not_py_spys_is_not_hang() -> None:
    _not("Thread 1 started: worker\n", "hang")


@pytest.mark.parametrize("text", [
    "qwen2.5 lora 训练卡住不动\n",
    "Llama-3 SFT with DeepSpeed freezes after 100 steps\n",
])
def test_titles_of_a_frozen_run_are_hang(text: str) -> None:
    assert top(text) == ("hang", "family-keyword")


@pytest.mark.parametrize("text", [
    "How to freeze the vision encoder when fine-tuning LLaVA with LoRA?\n",  # freezing weights, not a frozen run
    "llama training freezes while downloading the model\n",
    "YOLOv8 training freezes at epoch 3\n",  # no word of the stack
    "Projector weights stay frozen while LoRA finetuning Qwen-VL\n",  # "frozen" names frozen parameters
    "vision tower not frozen during llava lora training\n",
])
def test_titles_of_frozen_weights_or_other_programs_are_not_hang(text: str) -> None:
    _not(text, "hang")


@pytest.mark.parametrize("line", [
    "ValueError: loss is nan",
    "RuntimeError: Loss is NaN, stopping training",
])
def test_a_training_loops_nan_check_is_loss_nan(line: str) -> None:
    assert top(line + "\n") == ("loss-nan", "family-prior")


def test_a_nan_elsewhere_is_not_loss_nan() -> None:
    _not("ValueError: Input contains NaN, infinity or a value too large for dtype('float64').\n", "loss-nan")


@pytest.mark.parametrize("line", [
    "ValueError: Model architectures ['Qwen3NextForCausalLM'] are not supported for now.",
    "ValueError: model_type 'qwen3_vl' is not supported",
])
def test_a_framework_refusing_the_architecture_is_model_unsupported(line: str) -> None:
    assert top(line + "\n") == ("model-unsupported", "family-prior")


def test_an_unsupported_feature_is_not_model_unsupported() -> None:
    _not("ValueError: optimizer type 'adamw_apex_fused' is not supported\n", "model-unsupported")


def test_a_keyerror_in_transformers_auto_config_is_model_unsupported() -> None:
    # the dev set's drift-32-transformers-15190: a notebook's traceback cut after AutoConfig.from_pretrained's frame
    text = _trace([("transformers/models/auto/configuration_auto.py", "from_pretrained"),
                   ("transformers/models/auto/configuration_auto.py", "__getitem__")], "KeyError: 'gpt_neox_japanese2'")
    # a type no transformers release knows: the family, not KB0050's "upgrade" (model_type_known)
    assert top(text) in {("model-unsupported", "family-prior"), ("model-unsupported", "family-evidence")}
    known = text.replace("gpt_neox_japanese2", "qwen2")  # a type the API history dates: the installed one is older
    assert top(known) == ("model-unsupported", "case")


def test_tokenization_auto_and_other_errors_there_are_not_model_unsupported() -> None:
    _not(_trace([("transformers/models/auto/tokenization_auto.py", "from_pretrained")],
                "ValueError: This tokenizer cannot be instantiated. Please make sure you have `sentencepiece` installed"),
         "model-unsupported")
    _not(_trace([("transformers/models/auto/configuration_auto.py", "from_pretrained")],
                "OSError: Can't load config for 'org/model'"), "model-unsupported")


def test_a_layer_norm_on_a_partitioned_weight_is_sharding_config() -> None:
    line = ("RuntimeError: Expected weight to be of same shape as normalized_shape, but got weight of shape [0] and "
            "normalized_shape = [4096]\n")
    assert top(line) == ("sharding-config", "family-prior")
    _not("RuntimeError: Expected weight to be of same shape as normalized_shape, but got weight of shape [768] and "
         "normalized_shape = [1024]\n", "sharding-config")  # a layer built for another width: not a partitioned weight
