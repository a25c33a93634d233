"""KB0054 adapter-saved-by-newer-peft: the failing program.

A LoRA adapter saved by peft 0.21.2 (a local folder: adapter_config.json and the adapter's weights) is
loaded onto its base model with PeftModel.from_pretrained on peft 0.6.2 (pinned), an older release. peft
reads adapter_config.json and passes every key to LoraConfig(**kwargs); keys added to LoraConfig after 0.6.2
(alora_invocation_tokens, loftq_config, use_dora, use_rslora, ...) are not parameters of the old class, and
config.py raises "LoraConfig.__init__() got an unexpected keyword argument". Tiny Llama with random weights
and a hand-written adapter: nothing is downloaded.
"""

import peft
from peft import PeftModel

from adapter import write
from kb.fixtures import tiny

print(f"peft {peft.__version__}")
tokenizer = tiny.tokenizer()
base = tiny.causal_lm(tokenizer)
model = PeftModel.from_pretrained(base, write())
print(type(model).__name__)
