"""review49b (turn 49): defects found reviewing turn 49's merge (benchmarks/results/review-turn49b.txt).

1. families/api-drift.md hfargparser-unused: HfArgumentParser run in a Jupyter, Colab or Kaggle notebook is handed the
   kernel's own argv ("['-f', '/root/.local/share/jupyter/runtime/kernel-<id>.json']"; VS Code: "['--f=...kernel-v2-
   <id>.json']"): no field a release renamed, and no flag of the user's. rt49 revised this regex for leftovers that
   are all positional; the notebook's '-f' still read as a removed flag, at high confidence. The dev set's own note
   on drift-14-transformers-22171 says the variant is "itself not drift".
2. tables/priors.toml "must be Tensor, not str" ([[error]], and rt49's new [[keyword]] for titles): a ModelOutput
   unpacked as a tuple hands a key (a str) to the op that reads the model's OUTPUT (dropout, linear: argument
   'input'). embedding()'s argument 'indices' is the model's INPUT: a string there is text passed where token ids
   belong (model(prompt) on a Llama), which no release changed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from runtime_support import top_answer

DEV = Path(__file__).parent / "fixtures" / "diagnose" / "dev"

NOTEBOOK_ARGV = """\
---------------------------------------------------------------------------
ValueError                                Traceback (most recent call last)
<ipython-input-5-3c1b2a> in <cell line: 3>()
      1 parser = HfArgumentParser((ModelArguments, DataTrainingArguments, TrainingArguments))
----> 3 model_args, data_args, training_args = parser.parse_args_into_dataclasses()

/usr/local/lib/python3.10/dist-packages/transformers/hf_argparser.py in parse_args_into_dataclasses(self, args, \
return_remaining_strings, look_for_args_file, args_filename, args_file_flag)
    346             if remaining_args:
--> 347                 raise ValueError(f"Some specified arguments are not used by the HfArgumentParser: {remaining_args}")

ValueError: Some specified arguments are not used by the HfArgumentParser: LEFTOVER
"""


@pytest.mark.parametrize("leftover", [
    "['-f', '/root/.local/share/jupyter/runtime/kernel-3c9f1a2e-5b7d-4e0f-9a1c-2b3d4e5f6a7b.json']",  # Colab, Jupyter
    "['--f=/home/me/.local/share/jupyter/runtime/kernel-v2-41733Hq9XJm4c2Tw.json']",  # VS Code's notebooks
    "['-f', 'C:\\\\Users\\\\me\\\\AppData\\\\Roaming\\\\jupyter\\\\runtime\\\\kernel-7b1e.json']",  # Windows
])
def test_a_notebook_kernels_argv_is_not_api_drift(leftover: str) -> None:
    assert top_answer(NOTEBOOK_ARGV.replace("LEFTOVER", leftover)) is None


@pytest.mark.parametrize("leftover", [
    "['--evaluation_strategy', 'steps']",  # a flag a release removed, in the same notebook shape
    "['-f', 'kernel.json', '--evaluation_strategy', 'steps']",  # the kernel's argv and a flag of the user's
])
def test_a_flag_in_a_notebook_still_answers(leftover: str) -> None:
    assert top_answer(NOTEBOOK_ARGV.replace("LEFTOVER", leftover)) == ("family", "api-drift")


def test_the_launchers_local_rank_still_answers() -> None:
    """drift-14-transformers-22171: torch 2.0's --local-rank=0 first, the commenter's notebook line after it."""
    text = (DEV / "drift-14-transformers-22171.txt").read_text(encoding="utf-8")
    assert top_answer(text) == ("family", "api-drift")


TEXT_INTO_LLAMA = """\
Traceback (most recent call last):
  File "/content/infer.py", line 21, in <module>
    out = model(prompt)
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/module.py", line 1532, in _wrapped_call_impl
    return self._call_impl(*args, **kwargs)
  File "/usr/local/lib/python3.10/dist-packages/transformers/models/llama/modeling_llama.py", line 925, in forward
    inputs_embeds = self.embed_tokens(input_ids)
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/modules/sparse.py", line 163, in forward
    return F.embedding(
  File "/usr/local/lib/python3.10/dist-packages/torch/nn/functional.py", line 2264, in embedding
    return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)
TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str
"""


@pytest.mark.parametrize("text", [
    TEXT_INTO_LLAMA,
    "TypeError: embedding(): argument 'indices' (position 2) must be Tensor, not str\n",
    "embedding(): argument 'indices' (position 2) must be Tensor, not str\n",  # a title (rt49's keyword)
])
def test_text_passed_as_token_ids_is_not_api_drift(text: str) -> None:
    assert top_answer(text) is None


@pytest.mark.parametrize("text", [
    "dropout(): argument 'input' (position 1) must be Tensor, not str\n",
    "TypeError: linear(): argument 'input' (position 1) must be Tensor, not str\n",
])
def test_a_model_output_unpacked_still_answers(text: str) -> None:
    assert top_answer(text) == ("family", "api-drift")
