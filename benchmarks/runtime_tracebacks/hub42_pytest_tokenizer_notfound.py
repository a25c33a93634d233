# family: hub-access
# set: runtime-42
# mode: pytest
# expect: not a valid model identifier|Repository Not Found|RepositoryNotFound|not found
# note: pytest: AutoTokenizer.from_pretrained on a repo id the Hub does not know
import _hub
_hub.serve("notfound")
from transformers import AutoTokenizer


def test_tokenizer_loads():
    tok = AutoTokenizer.from_pretrained("my-org/llama-3-8b-sft-v2")
    assert tok.eos_token
