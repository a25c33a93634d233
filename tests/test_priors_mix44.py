"""The mix44 rules (issue #24): tables/priors.toml block "mix44", each on the error output of the real report it was built
from (dev-corpus batch gh-mix-17; the URL beside each) and on the near forms it must decline.

- A multimodal sample whose count of images, videos or audios disagrees with the count of their placeholder tokens
  (transformers' VLM forwards, its processors, LLaVA's, LlamaFactory's mm_plugin: one check, each library's wording) is
  the dataset's rows in a training run -> training-data; from an inference script's generate() it is no run's.
- torch's printed tensors holding nan (a loss, logits) are process evidence that the numbers stopped being finite ->
  loss-nan, where the report's other first lines name the stack or a run.
"""

from __future__ import annotations

import pytest

from rules_support import ruled

SP = "/home/ana/.venv/lib/python3.11/site-packages"  # a site-packages folder for the frames tests build


def _top(text: str) -> tuple[str, str] | None:
    found = ruled(text)
    return found[0] if found else None


# -- a multimodal sample's media count against its placeholder tokens -------------------------------------------------------
# hiyouga/LlamaFactory#8693 (gh-mix-17): Gemma3n fine-tuned on audio and text, LlamaFactory's mm_plugin check
LLAMAFACTORY_8693 = "ValueError: The number of audios does not match the number of <audio> tokens.\n"

# A Qwen2.5-VL LoRA run: transformers' forward, called from the Trainer's training step (the wording of 4.4x-4.5x)
QWEN_VL_TRAINING = f"""\
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/ana/LLaMA-Factory/src/llamafactory/launcher.py", line 23, in <module>
[rank1]:     launch()
[rank1]:   File "{SP}/transformers/trainer.py", line 2240, in train
[rank1]:     return inner_training_loop(
[rank1]:   File "{SP}/transformers/trainer.py", line 3745, in training_step
[rank1]:     loss = self.compute_loss(model, inputs, num_items_in_batch=num_items_in_batch)
[rank1]:   File "{SP}/transformers/models/qwen2_5_vl/modeling_qwen2_5_vl.py", line 1665, in forward
[rank1]:     raise ValueError(
[rank1]: ValueError: Image features and image tokens do not match: tokens: 2005, features 2695
"""

# The same check in other libraries' words, each in a run whose lines name training or data
OTHER_WORDINGS = [
    # transformers 5.x's forwards
    "Training Qwen3-VL with SFTTrainer\nValueError: Video features and video tokens do not match, tokens: 0, features: 2048\n",
    # transformers' processors
    "fine-tuning mllama on my dataset\nValueError: The number of images in the text [2] and images [1] should be the same.\n",
    # LLaVA's
    "sft run\nValueError: The input provided to the model are wrong. The number of image tokens is 0 while the number of "
    "image given to the model is 1. This prevents correct indexing and breaks batch generation.\n",
    # LlamaFactory's, for images
    "ValueError: The number of images does not match the number of <image> tokens in [{'content': 'Describe', "
    "'role': 'user'}].\n",
]


def test_a_training_samples_media_count_against_its_placeholders_is_training_data() -> None:
    assert _top(LLAMAFACTORY_8693) == ("training-data", "family-prior")
    assert _top(QWEN_VL_TRAINING) == ("training-data", "family-prior")


@pytest.mark.parametrize("text", OTHER_WORDINGS)
def test_each_librarys_wording_of_the_check_is_read(text: str) -> None:
    assert _top(text) == ("training-data", "family-prior")


# An inference script: the prompt built without the image's placeholder, generate() raising the same check
INFERENCE = f"""\
Traceback (most recent call last):
  File "/home/ana/vlm/ask.py", line 31, in <module>
    output_ids = model.generate(**inputs, max_new_tokens=256)
  File "{SP}/transformers/generation/utils.py", line 2215, in generate
    result = self._sample(
  File "{SP}/transformers/models/qwen2_vl/modeling_qwen2_vl.py", line 1689, in forward
    raise ValueError(
ValueError: Image features and image tokens do not match: tokens: 0, features 1176
"""


@pytest.mark.parametrize("text", [
    INFERENCE,
    # the line alone: whose run it was is not said
    "ValueError: Image features and image tokens do not match: tokens: 0, features 1176\n",
    # an object detector's image processor: images against annotations, no placeholder tokens
    "training DETR\nValueError: The number of images (2) and annotations (1) do not match.\n",
    # another class with the words
    "training\nRuntimeError: Image features and image tokens do not match: tokens: 0, features 1176\n",
])
def test_the_check_outside_a_training_run_or_in_other_words_is_not_claimed(text: str) -> None:
    assert ("training-data", "family-prior") not in ruled(text)


# -- torch's printed tensors holding nan -------------------------------------------------------------------------------------
# LLaVA-VL/LLaVA-NeXT#457 (gh-mix-17): a LLaVA-Llama-3.1 model's output printed in forward, its logits' rows nan
LLAVA_NEXT_457 = """\
in forward res: CausalLMOutputWithPast(loss=None, logits=tensor([[[-3.0938,  1.5547,  7.3750,  ...,  1.7344,  1.7344,  1.7344],
         [-4.5938, -4.6250, -7.7500,  ...,  4.6562,  4.6562,  4.6562],
         [-6.8125, -1.8203, -1.4531,  ...,  4.4062,  4.4062,  4.4062],
         ...,
         [    nan,     nan,     nan,  ...,     nan,     nan,     nan],
         [    nan,     nan,     nan,  ...,     nan,     nan,     nan],
         [    nan,     nan,     nan,  ...,     nan,     nan,     nan]]],
       device='cuda:0'), past_key_values=DynamicCache(), hidden_states=None, attentions=None)
"""

LOSS_PRINTED = """\
Fine-tuning Qwen2.5-7B with LoRA, epoch 1
step 10 loss 2.3141
step 20 loss tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)
"""


@pytest.mark.parametrize("text", [LLAVA_NEXT_457, LOSS_PRINTED])
def test_torchs_printed_tensors_of_nan_in_a_run_are_loss_nan(text: str) -> None:
    assert _top(text) == ("loss-nan", "family-prior")


@pytest.mark.parametrize("text", [
    # nothing around it says whose tensor it is
    "tensor(nan, device='cuda:0', grad_fn=<NllLossBackward0>)\n",
    # another program's run (the report's first lines name it)
    "Stable Diffusion XL dreambooth training with diffusers\nstep 5\nloss: tensor(nan, device='cuda:0')\n",
    # an attention mask's -inf is by design, and one nan among numbers is no row of them
    "training step 3\nmask: tensor([[0., -inf, -inf]], device='cuda:0')\nscores: tensor([0.25, nan, 0.75])\n",
    # NumPy's and pandas' NaN
    "fine-tuning data check\n[nan nan nan]\n   label   score\n0    NaN     NaN\n",
])
def test_nan_tensors_without_the_runs_words_or_not_torchs_are_not_claimed(text: str) -> None:
    assert ("loss-nan", "family-prior") not in ruled(text)
