"""Loading a model in 4-bit with bitsandbytes on a machine where torch sees no CUDA GPU
(a Colab/Kaggle runtime without an accelerator, a Mac, a container started without --gpus).

Run it under the cpu profile (CUDA hidden) with the pinned stack of the reports (transformers 4.44).
"""

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig

from kb.fixtures import tiny

tok = tiny.tokenizer()
path = tiny.saved(tiny.causal_lm(tok), tok)  # a local checkpoint, as after a download
print(f"torch {torch.__version__}, cuda available: {torch.cuda.is_available()}")

if torch.cuda.is_available():  # the 4-bit path needs a CUDA GPU on this stack
    model = AutoModelForCausalLM.from_pretrained(
        path,
        quantization_config=BitsAndBytesConfig(load_in_4bit=True, bnb_4bit_compute_dtype=torch.float32),
    )
else:  # no GPU: load without quantization (bf16/fp32 on the CPU)
    model = AutoModelForCausalLM.from_pretrained(path, torch_dtype=torch.float32)
batch = tok(tiny.texts(2), return_tensors="pt", padding=True, return_token_type_ids=False)
logits = model(**batch).logits
print(f"kb-measure logits_finite={float(torch.isfinite(logits).all())}")
