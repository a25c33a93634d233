"""Turn 49's review (review49) of what turn 48 merged: defects found in main, each with the input that showed it."""

from __future__ import annotations

import pytest
from rules_support import answers, top

# ---- 1. huggingface_hub's retry warning is not the failure when another error follows it ------------------------------
# rt48b read huggingface_hub's backoff line ("... thrown while requesting GET https://huggingface.co/...") as process
# evidence of hub-access. huggingface_hub logs it as a WARNING before each retry (utils/_http.py: logger.warning, then
# it tries again and raises only after the last attempt), so a run whose retry succeeded prints it and goes on; process
# evidence ranks before an error's own prior, so a later, unrelated failure was answered hub-access.
RETRY_503 = ("HTTP Error 503 thrown while requesting HEAD https://huggingface.co/meta-llama/Llama-2-7b-hf/resolve/main/"
             "config.json\nRetrying in 1s [Retry 1/5].\n")
RETRY_PROTOCOL = ("'(ProtocolError('Connection aborted.', RemoteDisconnected('Remote end closed connection without "
                  "response')), '(Request ID: fd98ddf2)')' thrown while requesting GET https://huggingface.co/datasets/"
                  "monology/pile-uncopyrighted/resolve/main/train/14.jsonl.zst\nRetrying in 1s [Retry 1/5].\n")
USER_KEYERROR = """\
{'loss': 2.1234, 'learning_rate': 1.9e-05, 'epoch': 0.01}
Traceback (most recent call last):
  File "/content/train.py", line 88, in <module>
    trainer.train()
  File "/content/train.py", line 61, in compute_metrics
    score = scores[pred_label]
KeyError: 'positive'
"""
DUMMY_OPTIM = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.10/dist-packages/transformers/trainer.py", line 2011, in _inner_training_loop
    self.optimizer.step()
AttributeError: 'DummyOptim' object has no attribute 'step'
"""
TORCH_CAT = """\
Traceback (most recent call last):
  File "/content/train.py", line 88, in <module>
    x = torch.cat([pooled, hidden], dim=1)
RuntimeError: Tensors must have same number of dimensions: got 2 and 3
"""


def test_a_retry_warning_then_the_users_own_error_is_not_hub_access() -> None:
    """Was hub-access (prior:process) on the user's KeyError."""
    assert answers(RETRY_503 + USER_KEYERROR) == []


@pytest.mark.parametrize("retry", [RETRY_503, RETRY_PROTOCOL])
@pytest.mark.parametrize("error, family", [(DUMMY_OPTIM, "sharding-config"), (TORCH_CAT, "shape-mismatch")])
def test_a_retry_warning_does_not_outrank_the_errors_own_prior(retry: str, error: str, family: str) -> None:
    """Were hub-access first, the error's own prior second."""
    assert [f for f, _basis in answers(retry + error)] == [family]


@pytest.mark.parametrize("text", [
    RETRY_PROTOCOL,  # the report alone (SmerkyG/gptcore#2, runtime-49)
    RETRY_PROTOCOL + "Traceback (most recent call last):\n  File \"/content/train.py\", line 88, in <module>\n"
    "    for batch in loader:\nrequests.exceptions.ChunkedEncodingError: ('Connection broken: IncompleteRead(0 bytes "
    "read, 512 more expected)', IncompleteRead(0 bytes read, 512 more expected))\n",
    RETRY_503 + "aiohttp.client_exceptions.ClientPayloadError: Response payload is not completed\n",
    RETRY_503 + "/usr/lib/python3.10/warnings.py:109: UserWarning: TypedStorage is deprecated\n",
])
def test_the_retry_line_still_answers_alone_or_before_a_network_error(text: str) -> None:
    assert top(text) == ("hub-access", "family-prior")


# ---- 2. the private-op prior on a caller's scalar ------------------------------------------------------------------
# rt48's prior reads "TypeError: _op(): argument 'x' (position n) must be T, not U" as api-drift (a library calling a
# private torch op with another release's arguments); review48 left out a Python container, a NumPy array or None
# where a tensor belongs. A scalar is the caller's data as well: torch.unique(5), torch.unique(np.int64(3)) raise
# "_unique2(): argument 'input' (position 1) must be Tensor, not int" / "... not numpy.int64" (run with torch 2.x), and
# torch's own public function called the private op (its frame in torch/functional.py), which no release mismatches.
UNIQUE_TB = """\
Traceback (most recent call last):
  File "/content/prepare.py", line 31, in <module>
    classes = torch.unique(label)
  File "/usr/local/lib/python3.10/dist-packages/torch/functional.py", line 930, in _return_output
    output, _, _ = _unique_impl(input, sorted, return_inverse, return_counts, dim)
  File "/usr/local/lib/python3.10/dist-packages/torch/functional.py", line 844, in _unique_impl
    output, inverse_indices, counts = torch._unique2(
TypeError: _unique2(): argument 'input' (position 1) must be {kind}
"""


@pytest.mark.parametrize("kind", ["int", "float", "bool", "numpy.int64", "numpy.float32"])
def test_a_private_op_given_the_callers_scalar_is_not_api_drift(kind: str) -> None:
    assert answers(f"TypeError: _unique2(): argument 'input' (position 1) must be Tensor, not {kind}\n") == []


def test_a_private_op_called_by_torchs_own_public_function_is_not_api_drift() -> None:
    """torch.unique(label) with a label of the caller's: torch/functional.py called _unique2 (not a library)."""
    assert answers(UNIQUE_TB.format(kind="Tensor, not numpy.float32")) == []
    assert answers(UNIQUE_TB.format(kind="Tensor, not BatchEncoding")) == []  # (a tokenizer's output)


def test_the_deberta_report_stays_api_drift() -> None:
    """huggingface/transformers#16587 (runtime-48), a library's call of the private op."""
    text = "TypeError: _softmax_backward_data(): argument 'input_dtype' (position 4) must be torch.dtype, not Tensor\n"
    assert top(text) == ("api-drift", "family-prior")
    deberta = """\
Traceback (most recent call last):
  File "/usr/local/lib/python3.8/site-packages/torch/_tensor.py", line 363, in backward
    torch.autograd.backward(self, gradient, retain_graph, create_graph, inputs=inputs)
  File "/usr/local/lib/python3.8/site-packages/torch/autograd/function.py", line 253, in apply
    return user_fn(self, *args)
  File "/usr/local/lib/python3.8/site-packages/transformers/models/deberta/modeling_deberta.py", line 114, in backward
    inputGrad = _softmax_backward_data(grad_output, output, self.dim, output)
TypeError: _softmax_backward_data(): argument 'input_dtype' (position 4) must be torch.dtype, not Tensor
"""
    assert top(deberta) == ("api-drift", "family-prior")


# ---- 3. benchmarks/plan_error_pref.py --fit after speed48's kb/plan/trainers.py ---------------------------------------
# speed48 made kb/plan/trainers.py's table() a plain function (no functools.lru_cache on kb diagnose's OOM path); the
# benchmark's write_fitted still called table.cache_clear(): `--fit` wrote the table, then died (AttributeError). And
# before that, the table it printed after a fit was computed with the constants read before the fit (read_table keeps
# the file it read for the process): 1.4% MAE printed where the fitted constants give 1.2%.
def test_plan_error_pref_writes_and_uses_the_fitted_constants(tmp_path) -> None:  # noqa: ANN001
    import importlib
    import shutil
    import sys
    from pathlib import Path

    benchmarks = Path(__file__).resolve().parent.parent / "benchmarks"
    sys.path.insert(0, str(benchmarks))
    try:
        pref = importlib.import_module("plan_error_pref")
    finally:
        sys.path.remove(str(benchmarks))
    target = tmp_path / "plan-trainers.toml"
    shutil.copy(pref.table_path("plan-trainers"), target)
    fitted = {"orpo_logits_bytes_per_element": 9.123456, "inference_scale": 1.7}
    pref.write_fitted(fitted, target)  # (raised AttributeError: 'function' object has no attribute 'cache_clear')
    text = target.read_text()
    assert "orpo_logits_bytes_per_element = 9.1235" in text and "inference_scale = 1.7" in text
    c = pref.run_constants(fitted)
    assert (c["orpo_logits_bytes_per_element"], c["inference_scale"]) == (9.1235, 1.7)
    assert pref.run_constants()["inference_scale"] == pref.trainer_constants()["inference_scale"]


# ---- 4. (a test gap) the API-history memo keeps its own copy of an answer it has just computed --------------------------
# citime48a's tests edit only an answer that came from the memo; the first caller's answer (computed, then kept) was never
# edited, so keeping that very object instead of a copy passed them (checked by mutation). The callers do edit it
# (kb/diagnose/drift.py inserts facts): a later diagnosis in the same process (a notebook, kb check) would read them.
def test_the_first_callers_edits_do_not_reach_the_memo(monkeypatch: pytest.MonkeyPatch) -> None:
    from kb.apidrift import answer as memo

    monkeypatch.setattr(memo, "_MEMO", {})
    monkeypatch.setattr(memo, "_MEMO_SOURCES", [])
    question = ("unexpected-kwarg", {"name": "use_auth_token", "callable": "hf_hub_download"}, {}, None)
    first = memo.answer(*question)
    assert first is not None and first["facts"]
    kept = {k: list(v) if isinstance(v, list) else v for k, v in first.items()}
    first["facts"].insert(0, "a fact the first caller added")
    first["fixes"].clear()
    again = memo.answer(*question)
    assert (again["facts"], again["fixes"]) == (kept["facts"], kept["fixes"])
