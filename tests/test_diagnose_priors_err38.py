"""The classes of errors added for issue #24 in turn 38 (err38), read from the dev corpus's reports that show their
error output (gh-err-03 and the batches before it); each is checked on the forms the reports take and on near forms it
must decline.

- A NameError of a name that only an optional import of the stack binds (peft's PeftModel, LoraConfig,
  get_peft_model, prepare_model_for_kbit_training; flash-attn's flash_attn_varlen_func) raised in a library's or a
  project's module (tables/priors.toml [[error]]): the package is missing or its release lacks the name (trl#667, pasted
  without its class; openchat#52). Not the user's notebook cell forgetting the import, not another name.
- An AttributeError raised in unsloth's patched code or while trl builds one of its trainers ([[frame]]): the releases
  of unsloth, trl and transformers disagree; notebook tracebacks cut before the message are decided by the frame
  (unsloth#1699, unsloth#599). trl's other trainer methods stay the [[wrapper]] they are.
- A native backtrace whose frames are NCCL's shared-memory transport ([[process]]): /dev/shm too small for NCCL
  (trlx#536, "Caught signal 7 (Bus error ...)" then ncclShmOpen). A DataLoader's bus error is host-oom's, not this.
- DeepSpeed's "Current loss scale already at minimum" as a logger that lower-cases its lines prints it
  (families/loss-nan.md; TinyLLaVA_Factory#107).
"""

from __future__ import annotations

import pytest
from rules_support import SP, families, priors, tb, top

# ---- NameError of a name an optional import binds --------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    # the message alone, its class dropped by the reporter (trl#667): the parser implies NameError
    "name 'PeftModel' is not defined\n",
    # raised in a training project's own module, whose guarded flash-attn import bound nothing (openchat#52)
    ('  File "openchat/ochat/models/unpadded_llama.py", line 184, in forward\n'
     "    attn_output = flash_attn_varlen_func(\n"
     "NameError: name 'flash_attn_varlen_func' is not defined\n"),
    # a library's module, Python 3.10's suggestion after the message
    tb((f"{SP}/llmtuner/model/loader.py", 88, "load_model"),
       error="NameError: name 'prepare_model_for_kbit_training' is not defined. Did you mean: 'prepare_model'?"),
    "NameError: name 'get_peft_model' is not defined\n",
])
def test_a_name_an_optional_import_binds_is_api_drift(text: str) -> None:
    assert top(text) == ("api-drift", "family-prior")


NOTEBOOK_CELL = ("---------------------------------------------------------------------------\n"
                 "NameError                                 Traceback (most recent call last)\n"
                 "Cell In[3], line 5\n"
                 '      3 model = AutoModelForCausalLM.from_pretrained("gpt2")\n'
                 "----> 5 config = LoraConfig(r=8)\n\n"
                 "NameError: name 'LoraConfig' is not defined\n")


@pytest.mark.parametrize("text", [
    # the user's own notebook cell (an IPython cell, a Jupyter kernel's temporary file) forgot the import
    NOTEBOOK_CELL,
    ("Traceback (most recent call last):\n"
     '  File "/tmp/ipykernel_1234/3345.py", line 5, in <module>\n'
     "    config = LoraConfig(r=8)\n"
     "NameError: name 'LoraConfig' is not defined\n"),
    # other names: the user's variables, a global a datasets.map worker does not see, a name merely like peft's
    "NameError: name 'trainer' is not defined\n",
    "NameError: name 'tokenizer' is not defined\n",
    "NameError: name 'LoraConfigs' is not defined\n",
    "NameError: name 'my_PeftModel' is not defined\n",
])
def test_other_name_errors_are_not_api_drift_by_this_rule(text: str) -> None:
    assert "api-drift" not in families(text)


# ---- AttributeError in unsloth's patched code or a trl trainer's constructor -----------------------------------------

COLAB_UNSLOTH = ("AttributeError                            Traceback (most recent call last)\n"
                 "[<ipython-input-19-1fbe097b9261>](https://localhost:8080/#) in <cell line: 0>()\n"
                 "---> 55 outputs = model.generate(\n"
                 "     56     input_ids = inputs, max_new_tokens = 64, use_cache = True\n\n"
                 "11 frames\n"
                 "[/usr/local/lib/python3.11/dist-packages/unsloth/models/llama.py](https://localhost:8080/#) in "
                 "LlamaModel_fast_forward(self, input_ids, causal_mask, attention_mask, position_ids)\n")
COLAB_SFT_INIT = ("AttributeError                            Traceback (most recent call last)\n\n"
                  "<ipython-input-7-6df167867e64> in <cell line: 60>()\n"
                  "---> 60 trainer = SFTTrainer(\n"
                  "     61     model = model,\n\n"
                  "1 frames\n\n"
                  "/usr/local/lib/python3.10/dist-packages/trl/trainer/sft_trainer.py in __init__(self, model, args, "
                  "data_collator, train_dataset)\n")


@pytest.mark.parametrize("text", [
    COLAB_UNSLOTH,  # unsloth#1699: the message was not pasted, the frame is unsloth's
    COLAB_SFT_INIT,  # unsloth#599: trl's SFTTrainer constructor
    tb((f"{SP}/unsloth/models/llama.py", 980, "LlamaModel_fast_forward"),
       error="AttributeError: 'FastCache' object has no attribute 'seen_tokens'"),
    tb((f"{SP}/trl/trainer/dpo_trainer.py", 400, "__init__"),
       error="AttributeError: 'RefHolder' object has no attribute 'padding_value'"),
])
def test_an_attribute_error_in_unsloth_or_a_trl_trainers_constructor_is_api_drift(text: str) -> None:
    assert top(text) == ("api-drift", "family-prior")


@pytest.mark.parametrize("text", [
    # another class in the same frames: not this rule's
    tb((f"{SP}/unsloth/models/llama.py", 980, "LlamaModel_fast_forward"),
       error="ValueError: something about the batch"),
    # a trl trainer's training step (a wrapper: it calls the code that failed) and trl code that is not a trainer
    tb((f"{SP}/trl/trainer/sft_trainer.py", 700, "compute_loss"),
       error="AttributeError: 'NoneType' object has no attribute 'shape'"),
    tb((f"{SP}/trl/models/modeling_value_head.py", 120, "__init__"),
       error="AttributeError: 'NoneType' object has no attribute 'shape'"),
    # a path that only holds the word (the user's folder named unsloth_notes)
    tb(("/home/ana/unsloth_notes/run.py", 10, "main"),
       error="AttributeError: 'NoneType' object has no attribute 'shape'"),
])
def test_attribute_errors_elsewhere_are_not_this_rules(text: str) -> None:
    assert top(text) != ("api-drift", "family-prior")


# ---- NCCL's shared-memory transport in a native backtrace -----------------------------------------------------------

SHM_BUS_ERROR = ("Caught signal 7 (Bus error: nonexistent physical address)\n"
                 "==== backtrace (tid:   3458) ====\n"
                 " 0 0x0000000000043090 killpg()  ???:0\n"
                 " 1 0x000000000018bb41 __nss_database_lookup()  ???:0\n"
                 " 2 0x000000000006f425 ncclShmOpen()  /dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/misc/"
                 "shmutils.cc:52\n"
                 " 3 0x0000000000074322 shmRecvSetup()  /dvs/p4/build/sw/gpgpu/nccl/gitfusion/stable/src/transport/"
                 "shm.cc:110\n")


@pytest.mark.parametrize("text", [
    SHM_BUS_ERROR,
    # the backtrace's frames without their source paths (a stripped build)
    "Caught signal 7 (Bus error: nonexistent physical address)\n 2 0x6f425 ncclShmOpen()  ???:0\n",
])
def test_a_crash_in_nccls_shared_memory_transport_is_a_multi_gpu_launch(text: str) -> None:
    assert top(text) == ("multi-gpu-launch", "family-prior")


@pytest.mark.parametrize("text", [
    # a DataLoader worker's bus error is /dev/shm too, but the DataLoader's (host-oom's signature)
    "RuntimeError: DataLoader worker (pid 4141) is killed by signal: Bus error. It is possible that dataloader's "
    "workers are out of shared memory.\n",
    # a bus error with no NCCL frame, and words like NCCL's that are no frame of its
    "Caught signal 7 (Bus error: nonexistent physical address)\n 2 0x6f425 memcpy()  ???:0\n",
    "I read shmutils.txt and ncclShmOpenness notes\n",
])
def test_other_bus_errors_and_words_are_not_nccls_shared_memory(text: str) -> None:
    assert top(text) != ("multi-gpu-launch", "family-prior")


def test_the_shared_memory_rule_is_one_of_the_process_rules() -> None:
    rules = [r for r in priors()["process"] if r["family"] == "multi-gpu-launch" and "ncclShm" in r["literals"]]
    assert len(rules) == 1


# ---- DeepSpeed's loss scale at its minimum, lower-cased by a logger --------------------------------------------------


@pytest.mark.parametrize("text", [
    "exception: current loss scale already at minimum - cannot decrease scale anymore. exiting run\n",
    "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.\n",
])
def test_the_loss_scale_at_its_minimum_in_either_case_is_loss_nan(text: str) -> None:
    assert top(text) is not None and top(text)[0] == "loss-nan"


@pytest.mark.parametrize("text", [
    # DeepSpeed's routine overflow line: the scale is being reduced, not at its minimum
    "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 65536, reducing to 32768\n",
    # the words without "current": no message of DeepSpeed's
    "Exception: the loss scale already at minimum was fine\n",
])
def test_other_loss_scale_lines_are_not_loss_nan(text: str) -> None:
    assert "loss-nan" not in families(text)


# ---- transformers' underflow/overflow detector ----------------------------------------------------------------------

UNDERFLOW_REPORT = ("output[0] has nans\n"
                    "output[1] has nans\n\n"
                    "Detected inf/nan during batch_number=130\n"
                    "Last 21 forward frames:\n"
                    "abs min  abs max  metadata\n"
                    "                  model.encoder.layer.0.attention.self.key Linear\n"
                    "2.45e-08 6.35e-02 weight\n"
                    "1.04e-06 7.47e+00 input[0]\n")


def test_the_underflow_overflow_detectors_report_is_loss_nan() -> None:
    assert top(UNDERFLOW_REPORT) == ("loss-nan", "family-prior")


@pytest.mark.parametrize("text", [
    # its table without its verdict line, and the verdict's words inside prose
    "Last 21 forward frames:\nabs min  abs max  metadata\n2.45e-08 6.35e-02 weight\n",
    "we never Detected inf/nan during batch_number=130 in our tests, so what else is wrong\n",
])
def test_the_detectors_table_or_words_alone_are_not_its_report(text: str) -> None:
    assert top(text) != ("loss-nan", "family-prior")


# ---- peft's merge into a sharded (empty) base weight ----------------------------------------------------------------

MERGE = ((f"{SP}/peft/tuners/lora/model.py", 784, "merge_and_unload"),
         (f"{SP}/peft/tuners/lora/model.py", 438, "_unload_and_optionally_merge"),
         (f"{SP}/peft/tuners/lora/layer.py", 415, "merge"))


def test_a_merge_into_an_empty_base_weight_is_a_sharded_parameter() -> None:
    # KnowUnDo#1: merge_and_unload under ZeRO-3, nothing of DeepSpeed in the excerpt
    text = tb(*MERGE, error="RuntimeError: The size of tensor a (0) must match the size of tensor b (4096) at "
                            "non-singleton dimension 1")
    assert top(text) == ("sharding-config", "family-prior")


def test_a_merges_other_sizes_are_the_adapters_not_the_datas() -> None:
    text = tb(*MERGE, error="RuntimeError: The size of tensor a (1024) must match the size of tensor b (4096) at "
                            "non-singleton dimension 1")
    assert "shape-mismatch" not in families(text) and "sharding-config" not in families(text)


@pytest.mark.parametrize("text", [
    # a LoRA layer's forward (molmoact#32): the activations' sizes, the shape-mismatch family's signature
    tb((f"{SP}/peft/tuners/lora/layer.py", 807, "forward"),
       error="RuntimeError: The size of tensor a (1152) must match the size of tensor b (288) at non-singleton "
             "dimension 2"),
    # the same size-0 message with no peft frame and no word of sharding: an empty batch's
    tb((f"{SP}/torch/_tensor.py", 487, "backward"),
       error="RuntimeError: The size of tensor a (0) must match the size of tensor b (4096) at non-singleton "
             "dimension 1"),
])
def test_size_errors_outside_a_merge_keep_their_answers(text: str) -> None:
    assert top(text) != ("sharding-config", "family-prior")
    if "forward" in text:
        assert top(text) == ("shape-mismatch", "family-evidence")
