"""The mechanism added for issue #24 in turn 45 (mix45): a [[wrapper]] rule of tables/priors.toml may name the one
function of a file that only wraps the work (kb/diagnose/match.py ``wrapper_frame``). FSDP's forward
(torch/distributed/fsdp/fully_sharded_data_parallel.py) runs the wrapped model, so an error raised in the model passes
through it: it no longer decides sharding-config, while FSDP's own code (its other files, and the other functions of
that file) still does. Checked on the error output of the corpus report it was written from (its URL beside it) and on
the near forms that must keep their answer. The learned fallback is left out: these tests look at what the rules
answer."""

from __future__ import annotations

from rules_support import SP, priors, ruled, tb, top

from kb.diagnose.errors import Frame
from kb.diagnose.match import wrapper_frame

FSDP = f"{SP}/torch/distributed/fsdp"

# https://github.com/linkedin/Liger-Kernel/issues/631 (corpus gh-mix-18): FSDP and LoRA with modules_to_save, the
# excerpt's traceback cut inside FSDP's forward (its exception line not shown)
LIGER_631 = """\
[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/amp/autocast_mode.py", line 44, in decorate_autocast
[rank0]:     return func(*args, **kwargs)
[rank0]:            ^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py", line 864, in forward
[rank0]:     output = self._fsdp_wrapped_module(*args, **kwargs)
[rank0]:              ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/opt/conda/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1736, in _wrapped_call_impl
[rank0]:     return self._call_impl(*args, **kwargs)
[rank0]:            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
[rank0]:   File "/opt/conda/lib/python3.11/site-packages/accelerate/utils/operations.py", line 819, in forward
[rank0]:     return model_forward(*args, **kwargs)
"""


def test_a_traceback_cut_inside_fsdps_forward_is_not_sharding_config() -> None:
    assert "sharding-config" not in [family for family, _ in ruled(LIGER_631)]


def test_an_error_of_the_model_under_fsdp_is_not_fsdps() -> None:
    """An exception no signature knows, raised in the model's own forward, with FSDP's forward further out."""
    text = tb((f"{FSDP}/fully_sharded_data_parallel.py", 864, "forward"),
              (f"{SP}/torch/nn/modules/module.py", 1747, "_call_impl"),
              (f"{SP}/transformers/models/llama/modeling_llama.py", 301, "forward"),
              error="ValueError: the zorblax gate expects a frobnicated input")
    assert "sharding-config" not in [family for family, _ in ruled(text)]


def test_fsdps_own_code_still_decides() -> None:
    """FSDP's unsharding and flattening raise in its other files; the other functions of fully_sharded_data_parallel.py
    are FSDP's own work too (its state-dict and lazy-init checks): the FSDP frame rule still answers them."""
    own = tb((f"{FSDP}/fully_sharded_data_parallel.py", 864, "forward"),
             (f"{FSDP}/_runtime_utils.py", 1041, "_pre_forward_unshard"),
             error="RuntimeError: the zorblax handle was never frobnicated")
    assert top(own) == ("sharding-config", "family-prior")
    same_file = tb((f"{FSDP}/fully_sharded_data_parallel.py", 731, "_lazy_init_zorblax"),
                   error="RuntimeError: the zorblax handle was never frobnicated")
    assert top(same_file) == ("sharding-config", "family-prior")


def test_a_wrapper_rule_may_name_its_function() -> None:
    table = priors()
    fsdp_file = "/x/site-packages/torch/distributed/fsdp/fully_sharded_data_parallel.py"
    assert wrapper_frame(Frame(fsdp_file, 864, "forward"), table)
    assert not wrapper_frame(Frame(fsdp_file, 731, "_lazy_init"), table)
    assert not wrapper_frame(Frame("/x/site-packages/torch/distributed/fsdp/_flat_param.py", 1239, "forward"), table)
    # a rule without a function holds for every function of its file, as before
    assert wrapper_frame(Frame("C:\\env\\Lib\\site-packages\\transformers\\trainer.py", 2171, "train"), table)
