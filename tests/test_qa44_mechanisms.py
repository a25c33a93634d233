"""qa44's mechanisms (issue #24, forum reports of corpus/reports-qa-44.jsonl), each on the report's own text and on the
near forms it must leave as they were:

- a ``raise`` on a notebook traceback's numbered context line is code IPython printed around the line that ran, not
  the error (kb/diagnose/parser.py ``_raise_statement``);
- a notebook machine that crashed for its RAM while the stack ran is host-oom (tables/priors.toml, section qa44).
"""

from __future__ import annotations

import pytest
from rules_support import families, top

# HuggingFaceH4/zephyr-7b-alpha/discussions/35: the IPython traceback as the discussion shows it (the TypeError's
# message is cut off by the excerpt; accelerate's find_executable_batch_size wraps the training loop).
ZEPHYR_35 = """\
---------------------------------------------------------------------------
TypeError Traceback (most recent call last)
Input In [10], in <cell line: 9>()
2 peft_trainer = Trainer(
3 model=peft_model,
4 args=peft_training_args,
5 train_dataset=training_dataset,
6 )
8 # Start PEFT training
----> 9 peft_trainer.train()
11 # Save the PEFT-trained model

File ~\\Anaconda3\\lib\\site-packages\\transformers\\trainer.py:1530, in Trainer.train(self, resume_from_checkpoint, trial, ignore_keys_for_eval, **kwargs)
1528 hf_hub_utils.enable_progress_bars()
1529 else:
-> 1530 return inner_training_loop(
1531 args=args,
1532 resume_from_checkpoint=resume_from_checkpoint,
1533 trial=trial,
1534 ignore_keys_for_eval=ignore_keys_for_eval,
1535 )

File ~\\Anaconda3\\lib\\site-packages\\accelerate\\utils\\memory.py:136, in find_executable_batch_size..decorator(*args, **kwargs)
134 raise RuntimeError("No executable batch size found, reached zero.")
135 try:
--> 136 return function(batch_size, *args, **kwargs)
137 except Exception as e:
138 if should_reduce_batch_size(e):

File ~\\Anaconda3\\lib\\site-packages\\transformers\\trainer.py:1844, in Trainer._inner_training_loop(self, batch_size, args, resume_from_checkpoint, trial, ignore_keys_for_eval)
1841 self.co
"""

MEMORY_PY = "File ~/site-packages/accelerate/utils/memory.py:134, in find_executable_batch_size..decorator(*args, **kwargs)"


def test_a_numbered_context_raise_is_not_the_error() -> None:
    # before: "134 raise RuntimeError(...)" was read as the error, and cuda-oom's 'no-executable-batch-size' answered
    # a TypeError whose message the page cut
    assert "cuda-oom" not in families(ZEPHYR_35)
    assert families(ZEPHYR_35) == []


@pytest.mark.parametrize("text", [
    # the line IPython marks as the one that ran: the raise did run, its message is the error
    f'{MEMORY_PY}\n133 if batch_size == 0:\n--> 134     raise RuntimeError("No executable batch size found, reached zero.")\n',
    # the exception line itself, after the context
    f'{MEMORY_PY}\n134 raise RuntimeError("No executable batch size found, reached zero.")\n'
    "RuntimeError: No executable batch size found, reached zero.\n",
])
def test_a_raise_that_ran_is_still_read(text: str) -> None:
    assert top(text) is not None and top(text)[0] == "cuda-oom"


def test_a_frames_own_raise_line_is_still_read() -> None:
    # a frame's source line under its File line (ComfyUI's flattened excerpt, the dev set's bnb-4bit-without-gpu
    # fixture): not numbered, so still the message of a traceback cut before its exception line
    text = (
        'File "/Users/a/Envs/c/lib/python3.10/site-packages/transformers/quantizers/quantizer_bnb_4bit.py", line 62, '
        "in validate_environment\n"
        'raise RuntimeError("No GPU found. A GPU is needed for quantization.")\n'
    )
    assert top(text) is not None and top(text)[0] == "cuda-setup"


def test_colab_crashed_for_memory_is_host_oom() -> None:
    # meta-llama/Meta-Llama-3-8B/discussions/50, the title
    assert top("Colab is getting crashed due to Memory while accessing Llama-3-8B") == ("host-oom", "family-keyword")
    assert top("Kaggle notebook crashes, RAM full, while loading mistral 7b with transformers") == (
        "host-oom", "family-keyword")


@pytest.mark.parametrize("text", [
    "Colab crashing when training srgan due to RAM",           # not the stack's (gh-titles-01's srgan report)
    "Colab crashed with CUDA out of memory while training llama 7b",  # the GPU's memory: an error, not a crash of RAM
    "Colab crashed due to GPU memory with qlora",
    "Colab notebook Crashes",                                  # no memory words, no stack words
    "Memory usage of llama 7b training on colab",              # no crash
])
def test_near_forms_are_declined(text: str) -> None:
    assert top(text) != ("host-oom", "family-keyword")
