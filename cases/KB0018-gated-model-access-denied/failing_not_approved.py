"""Logged in, but the access request is still pending: the token reaches the Hub and is refused.

The Hub here is kb/fixtures/hub.py's LocalHub, a local server standing in for huggingface.co:
meta-llama/Llama-3.2-3B is gated on it, the account "you" has requested access and not (yet) been
approved. transformers and huggingface_hub run unpatched against it through HF_ENDPOINT.
"""

import tempfile

from kb.fixtures.hub import LocalHub, use_hub

REPO = "meta-llama/Llama-3.2-3B"
CONFIG = '{"model_type": "llama", "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2, "num_attention_heads": 4, "num_key_value_heads": 4, "vocab_size": 128}'
TOKEN = "hf_kbYouReadTokenForLlama32"  # HF_TOKEN: a valid read token of the account "you"
GRANTED = []  # the access request on the model page is still pending

hub = LocalHub()
hub.add_repo(REPO, {"config.json": CONFIG}, gated=True)
hub.add_account("you", token=TOKEN, granted=GRANTED)

with tempfile.TemporaryDirectory() as home, hub:
    use_hub(hub, home, token=TOKEN)  # HF_ENDPOINT, an empty HF_HOME, HF_HUB_OFFLINE=0, HF_TOKEN
    import huggingface_hub
    import transformers

    print(f"huggingface_hub {huggingface_hub.__version__}, transformers {transformers.__version__}, HF_ENDPOINT={hub.url}")
    config = transformers.AutoConfig.from_pretrained(REPO)
    print(f"loaded {REPO}: {config.model_type}, {config.num_hidden_layers} layers")
    print(f"kb-measure hidden_size={config.hidden_size}")
