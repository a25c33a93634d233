"""The mechanisms added for issue #24 in turn 37 (err37), read from the dev corpus's reports that show their error
output (gh-err-02 and the batches before it); each is checked on the form the reports take and on near forms it must
decline.

- A parameter of size 0 under DeepSpeed ZeRO-3 (tables/priors.toml [[error]] with ``near``): "The size of tensor a (0)
  must match ...", "Expected reduction dim 1 to have non-zero size", "max() arg is an empty sequence" are ZeRO-3's
  partitioned parameters only where a DeepSpeed ZeRO frame or ZeRO-3's own words are near the error
  (DeepSpeed#4437, LlamaFactory#2546); the same messages elsewhere (an empty batch, an empty list) are not.
- An error a DataLoader worker or a DataParallel replica caught and torch re-raised ([reraise]): the original traceback
  that follows, cut before its exception line, is read with the class the wrapper names, so the frame rules that hold
  for some classes only decide (parler-tts#44: a tokenizer's convert_to_tensors under "Caught ValueError").
- The learned fallback does not guess from an exception's class alone (a notebook's "AttributeError  Traceback (most
  recent call last)" header whose traceback was not pasted, nothing before it: transformers#33153, peft#1239); prose
  before such a header still counts (the dev set's drift-14-llm-book-56, a sentence naming the removed argument).
"""

from __future__ import annotations

import copy

import pytest
from rules_support import SP, answers, priors, tb, top, zorblax_model  # noqa: F401 (zorblax_model: a fixture)

from kb.diagnose.errors import ParsedError
from kb.diagnose.fallback import class_without_message
from kb.knowledge.model import KnowledgeError
from kb.knowledge.tables import check_prior_regexes

# ---- ZeRO-3's partitioned (empty) parameters ------------------------------------------------------------------------

DS_BACKWARD = ((f"{SP}/deepspeed/utils/nvtx.py", 15, "wrapped_fn"),
               (f"{SP}/deepspeed/runtime/engine.py", 1923, "backward"),
               (f"{SP}/torch/_tensor.py", 487, "backward"),
               (f"{SP}/torch/autograd/__init__.py", 200, "backward"))


@pytest.mark.parametrize("text", [
    # the message cut off in the excerpt, raised under DeepSpeed's engine (the shape of DeepSpeed#4437)
    tb(*DS_BACKWARD, error="RuntimeError: The size of tensor a (0) must match the size"),
    # a frame that did not parse (a typo in the paste), its path and ZeRO-3's attribute in the lines before the error
    ('    Fille "/root/env/lib/python3.10/site-packages/deepspeed/runtime/zero/stage3.py", line 923, in init\n'
     "    largest_numel = max([sum([p.ds_numel for p in psg]) for psg in self.fp16_partitioned_groups])\n"
     "ValueError: max() arg is an empty sequence\n"),
    # a log that says ZeRO-3 before a reduction over an empty (partitioned) lm_head's logits
    ("[INFO] DeepSpeed ZeRO-3 is enabled\n"
     "IndexError: argmax(): Expected reduction dim 1 to have non-zero size.\n"),
    # the run's DeepSpeed config named in the command line before it
    ("deepspeed train.py --deepspeed configs/ds_config_zero3.json\n"
     "IndexError: argmax(): Expected reduction dim 1 to have non-zero size.\n"),
])
def test_an_empty_tensor_under_zero3_is_a_partitioned_parameter(text: str) -> None:
    assert top(text) == ("sharding-config", "family-prior")


@pytest.mark.parametrize("text", [
    # the same messages with nothing of DeepSpeed near them: an empty batch, an empty list of the user's
    "IndexError: argmax(): Expected reduction dim 1 to have non-zero size.\n",
    tb((f"{SP}/torch/_tensor.py", 487, "backward"), error="RuntimeError: The size of tensor a (0) must match the size"),
    "ValueError: max() arg is an empty sequence\n",
    # DeepSpeed ZeRO-2 (parameters are not partitioned there), named in the log or the config's name
    ("[INFO] zero_stage 2, offload_optimizer cpu\n"
     "IndexError: argmax(): Expected reduction dim 1 to have non-zero size.\n"),
    ("deepspeed train.py --deepspeed configs/ds_config_zero2.json --zero_size 30\n"
     "IndexError: argmax(): Expected reduction dim 1 to have non-zero size.\n"),
    # DeepSpeed's launcher only (the run was launched by deepspeed, whatever its ZeRO stage)
    tb((f"{SP}/deepspeed/launcher/runner.py", 607, "main"), error="ValueError: max() arg is an empty sequence"),
])
def test_the_same_empty_tensors_elsewhere_are_not_zero3s(text: str) -> None:
    assert top(text) is None or top(text)[0] != "sharding-config"


def test_a_zero_size_with_a_nonzero_size_is_not_read_as_zero() -> None:
    # "(10)" holds a 0 but is no empty tensor
    text = tb(*DS_BACKWARD, error="RuntimeError: The size of tensor a (10) must match the size")
    assert top(text) is None or top(text)[0] != "sharding-config"


# ---- an error a worker caught, re-raised by torch ------------------------------------------------------------------

ORIGINAL_CUT = ("Original Traceback (most recent call last):\n"
                f'  File "{SP}/transformers/tokenization_utils_base.py", line 759, in convert_to_tensors\n'
                "    tensor = as_tensor(value)\n")
WRAPPER = (f'  File "{SP}/torch/_utils.py", line 543, in reraise\n'
           "    raise exception\n")


@pytest.mark.parametrize("wrapper_line", [
    "ValueError: Caught ValueError in DataLoader worker process 0.",
    "ValueError: Caught ValueError in replica 0 on device 0.",
])
def test_the_original_traceback_of_a_reraised_error_has_the_wrappers_class(wrapper_line: str) -> None:
    text = "Traceback (most recent call last):\n" + WRAPPER + wrapper_line + "\n" + ORIGINAL_CUT
    assert top(text) == ("training-data", "family-prior")


@pytest.mark.parametrize("before", [
    "",  # the cut original traceback alone: no class to read it with
    "Traceback (most recent call last):\n" + WRAPPER + "KeyError: Caught KeyError in DataLoader worker process 0.\n",
    # an error that re-raises nothing: its class is not the cut traceback's
    "ValueError: the batch could not be built\n",
])
def test_a_cut_traceback_without_a_wrapper_naming_a_class_the_frame_holds_for_is_not_read_so(before: str) -> None:
    text = before + ORIGINAL_CUT
    assert top(text) is None or top(text)[0] != "training-data"


def test_the_reraise_wrapper_must_capture_the_original_class() -> None:
    table = copy.deepcopy(priors())
    table["reraise"]["message"] = r"\bCaught \w{1,60} in DataLoader worker process \d{1,4}\b"
    with pytest.raises(KnowledgeError, match="captures no group"):
        check_prior_regexes(table, "tables/priors.toml")


# ---- the learned fallback and an exception's class alone -----------------------------------------------------------

NOTEBOOK_HEADER = ("---------------------------------------------------------------------------\n"
                   "AttributeError                            Traceback (most recent call last)\n"
                   "Cell In[36], line 1\n"
                   "----> 1 zorblax.train()\n")


def test_class_without_message() -> None:
    bare = ParsedError("AttributeError", "")
    header = ["AttributeError                            Traceback (most recent call last)"]
    assert class_without_message(bare, [bare], header)
    assert class_without_message(bare, [bare], ["-" * 75, *header])
    assert class_without_message(bare, [bare], [])
    assert not class_without_message(bare, [bare], ["zorblax broke after evaluation_strategy was removed", *header])
    assert not class_without_message(ParsedError("AttributeError", "'X' has no attribute 'y'"), [], header)
    assert not class_without_message(bare, [bare, ParsedError("", "zorblax frobnicated the weights")], header)
    assert not class_without_message(ParsedError("", ""), [], header)
    assert not class_without_message(None, [], header)


@pytest.mark.usefixtures("zorblax_model")
@pytest.mark.parametrize("text", [NOTEBOOK_HEADER, NOTEBOOK_HEADER.split("\n", 1)[1]])
def test_the_learned_fallback_does_not_guess_from_a_class_alone(text: str) -> None:
    assert answers(text) == []


@pytest.mark.usefixtures("zorblax_model")
@pytest.mark.parametrize("text", [
    NOTEBOOK_HEADER + "\nAttributeError: zorblax frobnicated the weights\n",  # the class with its message
    "After the upgrade zorblax stopped working:\n" + NOTEBOOK_HEADER,  # prose before the header says what changed
])
def test_the_learned_fallback_still_reads_a_class_with_words_around_it(text: str) -> None:
    assert answers(text) == [("shape-mismatch", "family-learned")]
