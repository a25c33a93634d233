"""The rules added for issue #24 in turn 36 (mix09): the call-signature TypeErrors beside the unexpected keyword
(too many positional arguments, missing required ones) on the stack's classes and calls, Python's messages of those
shapes pasted without their class, a trainer's log counting zero examples, a KeyError of a parameter's name, a peft
config indexed like a dict, GradScaler's _unscale_grads_ frame, and two title vocabularies (bf16 on a pre-Ampere card,
a model or dataset used offline). Each is checked on the forms the corpus's tune reports take and on near forms that
must stay unclaimed: a user's own function called wrongly outside the stack, a reward function missing a dataset
column, 'NoneType' indexed, a KeyError of a config key, a question about offline mode or bf16. The learned fallback is
left out: these tests look at what the rules answer."""

from __future__ import annotations

import pytest
from parse_support import errors
from rules_support import SP, tb, top


@pytest.mark.parametrize(("text", "family"), [
    # a trainer's log line quoting the TypeError without its class (QuixiAI/grokadamw#7, tune)
    ("ERROR - Training failed: CustomTrainer.training_step() takes 3 positional arguments but 4 were given\n",
     "api-drift"),
    ("TypeError: DPOTrainer.log() takes 2 positional arguments but 3 were given\n", "api-drift"),
    ("TypeError: LlamaRotaryEmbedding.forward() missing 1 required positional argument: 'position_ids'\n", "api-drift"),
    ("TypeError: PPOTrainer.__init__() missing 2 required positional arguments: 'reward_model' and 'train_dataset'\n",
     "api-drift"),
    # a function the stack calls, written for another release (unslothai/unsloth#2769, tune): frames in the stack
    (tb((f"{SP}/transformers/trainer.py", 2240, "train"), (f"{SP}/transformers/trainer.py", 2510, "_inner_training_loop"),
        error="TypeError: _unsloth_get_batch_samples() takes 3 positional arguments but 4 were given"), "api-drift"),
    # Python's message pasted alone (a title) is read as its TypeError
    ("DPOTrainer.log() takes 2 positional arguments but 3 were given\n", "api-drift"),
    # a peft config indexed like the dict of configs (ymcui/Chinese-LLaMA-Alpaca#582, tune: a title)
    ("'LoraConfig' object is not subscriptable\n", "api-drift"),
    ("TypeError: 'PeftConfig' object is not subscriptable\n", "api-drift"),
    # a tensor looked up by its parameter name (OpenGVLab/LLaMA-Adapter#37, tune: a title)
    ("KeyError: 'adapter_query.weight' on finetuned adaptor\n", "checkpoint-io"),
    (tb((f"{SP}/torch/nn/modules/module.py", 2041, "load_state_dict"), ("/home/ana/proj/load.py", 9, "load"),
        error="KeyError: 'module.embedding.word_embeddings.weight'"), "checkpoint-io"),
    # the trainer's own count of zero examples (axolotl-ai-cloud/axolotl#1644, tune)
    ("[2024-05-21 07:42:21,266] [DEBUG] [axolotl.calculate_total_num_steps:365] [PID:15484] [RANK:0] data_loader_len: 0\n",
     "training-data"),
    ("***** Running training *****\n  Num examples = 0\n  Num Epochs = 3\n", "training-data"),
    # LLaMA-Factory's loader: no example survived (its own words, llamafactory/data/loader.py)
    (tb((f"{SP}/llamafactory/data/loader.py", 330, "get_dataset"),
        error="RuntimeError: Cannot find valid samples, check `data/README.md` for the data format."), "training-data"),
    ("[rank0]: RuntimeError: Cannot find sufficient samples, consider increasing dataset size.\n", "training-data"),
    # GradScaler's frame in a traceback cut before its exception line (a notebook's excerpt: google/gemma-2b's forum, tune)
    (f"File {SP}/torch/cuda/amp/grad_scaler.py:258, in GradScaler._unscale_grads_(self, optimizer, inv_s\n",
     "fp16-gradients"),
    (tb((f"{SP}/accelerate/accelerator.py", 2151, "clip_grad_norm_"), (f"{SP}/torch/amp/grad_scaler.py", 338, "unscale_"),
        (f"{SP}/torch/amp/grad_scaler.py", 279, "_unscale_grads_"), error="ValueError: something new"), "fp16-gradients"),
    # bf16 on a card without it (unslothai/unsloth#7506, tune: a title)
    ("[Bug] Crash on T4 Kaggle environment qwen 3.5 0.8b bf16 training\n", "precision-unsupported"),
    ("bf16 training fails on V100 with llama\n", "precision-unsupported"),
    # a model used offline (huggingface/datasets#1724, tune: a title)
    ("could not run models on a offline server successfully\n", "hub-access"),
])
def test_the_forms_real_reports_take(text: str, family: str) -> None:
    assert top(text) is not None and top(text)[0] == family


@pytest.mark.parametrize("text", [
    # a user's own function, no stack in sight: not the stack's API (the signatures need a stack class or frame)
    "TypeError: my_collate() takes 1 positional argument but 2 were given\n",
    # the stack calls the user's reward function with the dataset's columns: a missing column is the data's
    "[rank0]: TypeError: accuracy_reward() missing 1 required positional argument: 'assistant'\n",
    tb((f"{SP}/trl/trainer/grpo_trainer.py", 1000, "_calculate_rewards"),
       error="TypeError: accuracy_reward() missing 1 required positional argument: 'assistant'"),
    # other objects indexed or called: no family
    "TypeError: 'NoneType' object is not subscriptable\n",
    "'int' object is not iterable\n",
    # a KeyError of a config key or a column, not a tensor's name
    "KeyError: 'model_type'\n",
    "KeyError: 'best_score'\n",
    # a LoRA tensor's name: the adapter's (adapter-config's frame rules), not a checkpoint's
    "KeyError: 'base_model.model.lm_head.lora_A.weight'\n",
    # a count that is not zero, or zero of something else
    "  Num examples = 10\n",
    "[axolotl.calculate_total_num_steps:365] [RANK:0] data_loader_len: 0.5 total\n",
    # another torch frame in a cut traceback
    f"File {SP}/torch/optim/adamw.py:188, in AdamW.step(self, closure)\n",
    "RuntimeError: Cannot find the requested files in the cached path\n",
    # questions, not failures
    "Does bf16 work on a T4?\n",
    "How to load dataset in offline mode?\n",
    "Discussion using datasets in offline mode\n",
])
def test_near_forms_stay_unclaimed_by_these_rules(text: str) -> None:
    found = top(text)
    assert found is None or found[0] not in ("api-drift", "checkpoint-io", "training-data", "fp16-gradients",
                                             "precision-unsupported", "hub-access")


@pytest.mark.parametrize(("text", "message"), [
    ("CustomTrainer.training_step() takes 3 positional arguments but 4 were given",
     "CustomTrainer.training_step() takes 3 positional arguments but 4 were given"),
    ("takes 2 positional arguments but 3 were given.", "takes 2 positional arguments but 3 were given"),
    ("forward() missing 1 required positional argument: 'position_ids'",
     "forward() missing 1 required positional argument: 'position_ids'"),
    ("__init__() missing 3 required positional arguments: 'a', 'b', and 'c'",
     "__init__() missing 3 required positional arguments: 'a', 'b', and 'c'"),
    ("'LoraConfig' object is not subscriptable", "'LoraConfig' object is not subscriptable"),
    ("'Tensor' object is not callable", "'Tensor' object is not callable"),
])
def test_python_call_and_type_messages_imply_typeerror(text: str, message: str) -> None:
    assert [(e.type, e.message) for e in errors(text + "\n")] == [("TypeError", message)]


@pytest.mark.parametrize("text", [
    "the model object is not subscriptable in my script",  # a sentence: no exact shape
    "'LoraConfig' object is not subscriptable when loading",  # words after the message: not Python's line
    "it takes 2 positional arguments but 3 were given, why",
])
def test_sentences_around_those_messages_stay_untyped(text: str) -> None:
    assert not [e for e in errors(text + "\n") if e.type]
