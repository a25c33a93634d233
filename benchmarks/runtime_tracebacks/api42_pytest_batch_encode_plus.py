# family: api-drift
# set: runtime-42
# mode: pytest
# expect: batch_encode_plus|has no attribute
# note: pytest: a test calls tokenizer.batch_encode_plus (removed from transformers 5's tokenizers)
import _tiny


def test_tokenize_pairs():
    tok = _tiny.tokenizer()
    enc = tok.batch_encode_plus(["hello world", "the cat"], padding=True)
    assert len(enc["input_ids"]) == 2
