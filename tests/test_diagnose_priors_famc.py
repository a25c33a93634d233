"""The priors and the signature added for issue #24's famC families (cuda-setup, package-install, checkpoint-io,
hub-access, adapter-config): the driver's, ROCm's, pip's, git's and the linker's own lines, library exception classes,
the Hub client's and peft's config frames, and title words. Each is checked on the forms real reports take (the
corpus's tune reports, short excerpts, and the libraries' own messages) and on near forms that must stay unclaimed:
another program's report (a game's save editor, a video model's flash-attn install, vLLM's serving engine), a warning
that fails nothing, a peft save under a diffusion trainer. The learned fallback is left out: these tests look at what
the rules answer."""

from __future__ import annotations

import pytest
from rules_support import tb, top

SP = "/home/ana/.venv/lib/python3.11/site-packages"


@pytest.mark.parametrize(("text", "family"), [
    # the driver not answering (nvidia-smi, NVML)
    ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA "
     "driver is installed and running.\n", "cuda-setup"),
    ("Failed to initialize NVML: Driver/library version mismatch\n", "cuda-setup"),
    # ROCm without kernels for the card (a title of the corpus's tune part: unsloth#3526)
    ("[Bug] ROCm hip_global.cpp Module Error.\n", "cuda-setup"),
    ("rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: No such file or directory for GPU "
     "arch : gfx1031\n", "cuda-setup"),
    # the linker, bitsandbytes' int8 check, a C runtime too old for bitsandbytes' library
    ("/usr/bin/ld: cannot find -lcuda: No such file or directory\ncollect2: error: ld returned 1 exit status\n",
     "cuda-setup"),
    ("ERROR: Your GPU does not support Int8 Matmul!\n", "cuda-setup"),
    ("OSError: /lib/x86_64-linux-gnu/libstdc++.so.6: version `GLIBCXX_3.4.30' not found (required by "
     f"{SP}/bitsandbytes/libbitsandbytes_cuda121.so)\n", "cuda-setup"),
    ("ImportError: /lib64/libc.so.6: version `GLIBC_2.32' not found (required by "
     f"{SP}/flash_attn_2_cuda.cpython-311-x86_64-linux-gnu.so)\n", "package-install"),
    # pip building an extension without Python's headers (Dao-AILab/flash-attention#420, tune)
    (f"{SP}/torch/include/torch/csrc/python_headers.h:12:10: fatal error: Python.h: No such file or directory\n"
     "   12 | #include <Python.h>\n", "package-install"),
    ("  × Building wheel for flash-attn (setup.py) did not run successfully.\n", "package-install"),
    ("ERROR: Cannot install unsloth==2024.8 and torch==2.4.0 because these package versions have conflicting "
     "dependencies.\n", "package-install"),
    # git refusing a push to the Hub (huggingface/huggingface_hub#1560, tune)
    ("error: failed to push some refs to 'https://user:xxxx@huggingface.co/ana/model'\n", "hub-access"),
    # torch failing to start CUDA, whatever the CUDA error after the prefix
    ("UserWarning: CUDA initialization: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions "
     "before calling NumCudaDevices() that might have already set an error? Error 803: system has unsupported display "
     "driver / cuda driver combination\n", "cuda-setup"),
    ("RuntimeError: Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before calling "
     "NumCudaDevices() that might have already set an error?\n", "cuda-setup"),
    ("torch.cuda.DeferredCudaCallError: CUDA call failed lazily at initialization with error: device >= 0 && device < "
     "num_gpus INTERNAL ASSERT FAILED\n", "cuda-setup"),
    ("RuntimeError: CUDA error: the provided PTX was compiled with an unsupported toolchain.\n", "cuda-setup"),
    ("RuntimeError: CUDA error: invalid device function\nCompile with `TORCH_USE_CUDA_DSA` to enable device-side "
     "assertions.\n", "cuda-setup"),
    ("AssertionError: libcuda.so cannot found!\n", "cuda-setup"),
    ("OSError: CUDA_HOME environment variable is not set. Please set it to your CUDA install root.\n", "cuda-setup"),
    ("RuntimeError: The detected CUDA version (12.1) mismatches the version that was used to compile PyTorch (11.8). "
     "Please make sure to use the same CUDA versions.\n", "cuda-setup"),
    # packages out of step or missing
    ("RuntimeError: operator torchvision::nms does not exist\n", "package-install"),
    ("RuntimeError: Cannot find a working triton installation. Either the package is not installed or it is too old.\n",
     "package-install"),
    ("importlib.metadata.PackageNotFoundError: No package metadata was found for bitsandbytes\n", "package-install"),
    ("ImportError: /opt/neox/megatron/fused_kernels/build/scaled_masked_softmax_cuda.cpython-310-x86_64-linux-gnu.so: "
     "undefined symbol: cudaLaunchKernelExC\n", "package-install"),
    (f"ImportError: {SP}/vllm/_C.abi3.so: undefined symbol: _ZN3c106ivalue14ConstantString6createENSt7__cxx1112basic_"
     "stringIcSt11char_traitsIcESaIcEEE\n", "package-install"),
    # the unpickler and the Hub's servers
    ("_pickle.UnpicklingError: A load persistent id instruction was encountered, but no persistent_load function was "
     "specified.\n", "checkpoint-io"),
    ("requests.exceptions.HTTPError: 504 Server Error: Gateway Time-out for url: "
     "https://huggingface.co/api/models/bert-base-uncased\n", "hub-access"),
    ("requests.exceptions.ProxyError: (MaxRetryError(\"HTTPSConnectionPool(host='hf-mirror.com', port=443): Max "
     "retries exceeded with url: /api/models/Qwen/Qwen2-7B (Caused by ProxyError('Unable to connect to proxy'))\"))\n",
     "hub-access"),
    # the Hub's client errors whatever the class (huggingface/blog#1575, tune: "HTTPError: 400 Client Error: Bad Request
    # for url: https://huggingface.co/api/models/..."), and names neither local nor on the Hub
    ("HTTPError: 400 Client Error: Bad Request for url: https://huggingface.co/api/models/ana/whisper-small/commit/main\n",
     "hub-access"),
    ("OSError: Incorrect path_or_model_id: './out/checkpoint-10'. Please provide either the path to a local folder or "
     "the repo_id of a model on the Hub.\n", "hub-access"),
    ("datasets.exceptions.DatasetNotFoundError: Dataset 'ana/private-sft' doesn't exist on the Hub or cannot be "
     "accessed.\n", "hub-access"),
    # peft holding no adapter of that name (huggingface/peft#1574, tune)
    ("ValueError: Adapter default not found in odict_keys(['lora_1'])\n", "adapter-config"),
    # checkpoints that cannot be written, or whose tensors do not fit
    ("ValueError: You are trying to save a non contiguous tensor: `lm_head.weight` which is not allowed.\n",
     "checkpoint-io"),
    ('ValueError: Trying to set a tensor of shape torch.Size([32000, 4096]) in "weight" (which has shape '
     'torch.Size([32001, 4096])), this looks incorrect.\n', "checkpoint-io"),
    # cuDNN of another version, a Windows extension that does not load
    ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled against (8, 9, 2) but found runtime version "
     "(8, 5, 0).\n", "cuda-setup"),
    ("ImportError: DLL load failed while importing flash_attn_2_cuda: The specified module could not be found.\n",
     "package-install"),
    # the Hub's refusals in their own words, cut short or under another class
    ("OSError: You are trying to access a gated repo.\n", "hub-access"),
    ("ValueError: Token is required (`token=True`), but no token found. You need to provide a token or be logged in to "
     "Hugging Face with `huggingface-cli login`.\n", "hub-access"),
    # peft's configuration and merge refusals
    ("KeyError: 'peft_type'\n", "adapter-config"),
    ("ValueError: Cannot merge LORA layers when the model is loaded in 8-bit mode\n", "adapter-config"),
    # the stack's start-up finding no usable GPU
    ("RuntimeError: 0 active drivers ([]). There should only be one.\n", "cuda-setup"),
    ("NotImplementedError: Unsloth cannot find any torch accelerator? You need a GPU.\n", "cuda-setup"),
])
def test_the_environments_own_words_name_their_family(text: str, family: str) -> None:
    assert top(text) == (family, "family-prior")


@pytest.mark.parametrize(("text", "family"), [
    # the family signatures widened: torch's split CUDA library, a disk quota on save
    (f"OSError: {SP}/torch/lib/libtorch_cuda_cu.so: cannot open shared object file: No such file or directory\n",
     "cuda-setup"),
    (tb((f"{SP}/transformers/trainer.py", 2400, "_save_checkpoint"), (f"{SP}/torch/serialization.py", 600, "save"),
        error="OSError: [Errno 122] Disk quota exceeded"), "checkpoint-io"),
])
def test_widened_family_signatures(text: str, family: str) -> None:
    assert top(text) == (family, "family-evidence")


def test_an_html_page_read_as_remote_code_is_a_download_that_did_not_fetch_the_file() -> None:
    # PhoebusSi/Alpaca-CoT#40 (tune): a proxy's page saved as tokenization_chatglm.py
    text = ("Traceback (most recent call last):\n"
            '  File "/home/ana/finetune.py", line 8, in <module>\n'
            "    tok = AutoTokenizer.from_pretrained('THUDM/chatglm-6b', trust_remote_code=True)\n"
            f'  File "{SP}/transformers/dynamic_module_utils.py", line 400, in get_class_in_module\n'
            "    module = importlib.import_module(module_path)\n"
            '  File "/home/ana/.cache/huggingface/modules/transformers_modules/chatglm-6b/tokenization_chatglm.py", '
            "line 1\n"
            "    <!DOCTYPE html>\n"
            "    ^\n"
            "SyntaxError: invalid syntax\n")
    assert top(text) == ("checkpoint-io", "family-evidence")


@pytest.mark.parametrize(("frames", "error", "family"), [
    (((f"{SP}/transformers/trainer.py", 3900, "push_to_hub"), (f"{SP}/huggingface_hub/hf_api.py", 1200, "upload_folder")),
     "ValueError: the commit could not be created", "hub-access"),
    (((f"{SP}/huggingface_hub/repository.py", 1099, "git_push"),), "OSError: the remote hung up unexpectedly",
     "hub-access"),
    (((f"{SP}/datasets/load.py", 2100, "load_dataset"), (f"{SP}/datasets/utils/file_utils.py", 600, "get_from_cache")),
     "ConnectionError: the remote end closed the connection", "hub-access"),
    (((f"{SP}/accelerate/accelerator.py", 3000, "load_state"), (f"{SP}/accelerate/utils/fsdp_utils.py", 200,
      "load_fsdp_model"), (f"{SP}/torch/distributed/checkpoint/state_dict_loader.py", 150, "load")),
     "RuntimeError: Missing key in checkpoint state_dict: model.embed_tokens.weight.", "checkpoint-io"),
    (((f"{SP}/deepspeed/runtime/engine.py", 2800, "load_checkpoint"), (f"{SP}/deepspeed/runtime/engine.py", 2900,
                                                                         "_load_checkpoint")),
     "AssertionError: the checkpoint holds another number of ranks", "checkpoint-io"),
    (((f"{SP}/triton/runtime/jit.py", 600, "run"), (f"{SP}/triton/runtime/driver.py", 8, "_create_driver")),
     "RuntimeError: the driver list is empty", "cuda-setup"),
    (((f"{SP}/peft/peft_model.py", 163, "from_pretrained"),), "KeyError: None", "adapter-config"),
    (((f"{SP}/peft/peft_model.py", 300, "from_pretrained"), (f"{SP}/peft/config.py", 150, "from_pretrained")),
     "KeyError: 'peft_type'", "adapter-config"),
    (((f"{SP}/peft/peft_model.py", 700, "load_adapter"), (f"{SP}/peft/utils/save_and_load.py", 250,
                                                         "set_peft_model_state_dict")),
     "KeyError: 'base_model.model.lm_head.lora_A.weight'", "adapter-config"),
])
def test_the_hub_clients_and_peft_config_frames_name_their_family(frames: tuple, error: str, family: str) -> None:
    assert top(tb(*frames, error=error)) == (family, "family-prior")


@pytest.mark.parametrize(("text", "family"), [
    ("vision model layer not found in the base model during merging\n", "adapter-config"),  # 2U1/Llama3.2-Vision-Finetune#4
    ("DPO QLoRA training crashes after training during model save\n", "checkpoint-io"),  # axolotl#1304
    ("GRPO Train Failed With Input/Output Error\n", "checkpoint-io"),  # ms-swift#5882
    ("Bert Checkpoint Breaks 3.02 -> 3.1.0 due to new buffer in BertEmbeddings\n", "checkpoint-io"),  # transformers#6882
    ("pip install flash-attn fails on Qwen2 finetune: Failed building the wheel\n", "package-install"),
    ("Llama 3 fine-tuning: build failure of the CUDA kernels\n", "package-install"),
    ("QLoRA fails: pip put a CPU-only torch build in the environment\n", "cuda-setup"),
    ("GPU not detected when fine-tuning Llama with LoRA\n", "cuda-setup"),
])
def test_title_words_name_their_family(text: str, family: str) -> None:
    assert top(text) == (family, "family-keyword")


@pytest.mark.parametrize("text", [
    "Error on save file\n",  # a game's save editor (bucanero/apollo-ps4#80, out of scope)
    "flash-attn install error\n",  # a video model's install (genmoai/mochi#22, out of scope): no stack word
    "torch.compile error\n",  # a run's compiler, not a package build
    "Saving error finetuning stable diffusion LoRA\n",  # a diffusion model ([other])
    "A matching Triton is not available, some optimizations will not be enabled.\n"
    "Error caught was: No module named 'triton'\n",  # a warning that fails nothing (kohya_ss, out of scope)
    "Training LoRA for Flux Multi GPU not working with more than 2 GPUs\n",  # another program, several GPUs
    "ValueError: Adapter fan not found in the settings\n",  # not peft's adapter dict
    "HTTPError: 404 Client Error: Not Found for url: https://api.github.com/repos/ana/x\n",  # another host
    "ImportError: DLL load failed while importing _ssl: The specified module could not be found.\n",  # not the stack's
    "KeyError: 'peft_type_id'\n",  # not the config's key
    "ImportError: libGL.so.1: cannot open shared object file: No such file or directory\n",  # OpenCV's system library
    "GPU not detected\n",  # no stack word: any program's
    "ERROR: Could not find a version that satisfies the requirement bitsandbyte (from versions: none)\n",  # a typo
])
def test_near_misses_of_other_software_stay_unanswered(text: str) -> None:
    assert top(text) is None


def test_vllms_serving_engine_keeps_its_cuda_errors() -> None:
    # ROCm/legacy-rocm-build#4447 (held out, out of scope): vLLM's engine log of the same CUDA error
    text = ("ERROR 03-17 03:57:17 [engine.py:411] RuntimeError: CUDA error: invalid device function\n"
            "ERROR 03-17 03:57:17 [engine.py:411] For debugging consider passing CUDA_LAUNCH_BLOCKING=1\n")
    assert top(text) is None


@pytest.mark.parametrize(("frames", "error"), [
    # a diffusion trainer saving its UNet's LoRA through peft (huggingface/peft#1011, bghira/SimpleTuner#627): not claimed
    (((f"{SP}/peft/peft_model.py", 178, "save_pretrained"),), "AttributeError: 'NoneType' object has no attribute 'x'"),
    (((f"{SP}/peft/utils/save_and_load.py", 71, "get_peft_model_state_dict"),),
     "AttributeError: 'NoneType' object has no attribute 'peft_config'"),
    # datasets' download code raising for a local path is the data's, not the Hub's
    (((f"{SP}/datasets/utils/file_utils.py", 200, "cached_path"),), "FileNotFoundError: Local file /data/x.json doesn't exist"),
    # another library's module that does not link (psycopg2, OpenCV), or another framework's
    ((), "ImportError: /usr/lib/python3/dist-packages/psycopg2/_psycopg.cpython-310-x86_64-linux-gnu.so: undefined "
         "symbol: PQconninfo"),
    ((), f"ImportError: {SP}/cv2/cv2.abi3.so: undefined symbol: _ZN2cv3MatC1Ev"),
    ((), "ImportError: /opt/tf/lib/python3.10/site-packages/tensorflow/python/_pywrap_tensorflow_internal.so: "
         "undefined symbol: _ZN10tensorflow8OpKernel11TraceStringEv"),
])
def test_near_frames_stay_unclaimed(frames: tuple, error: str) -> None:
    answer = top(tb(*frames, error=error))
    assert answer is None or answer[0] not in ("checkpoint-io", "hub-access", "package-install")
