"""Train a LoRA adapter on one base model, then load it onto a base model of another size,
telling peft to skip the tensors that do not fit (ignore_mismatched_sizes=True).

The adapter was trained on the "7B" (hidden size 64 here); the inference script loads the "13B"
(hidden size 96) of the same family and attaches the adapter to it. Tiny Llamas from kb/fixtures,
random weights, nothing downloaded.
"""

import tempfile

import torch
from peft import LoraConfig, PeftConfig, PeftModel, get_peft_model
from transformers import AutoModelForCausalLM

from kb.fixtures import tiny

tok = tiny.tokenizer()
base_7b = tiny.saved(tiny.causal_lm(tok, hidden_size=64), tok)
base_13b = tiny.saved(tiny.causal_lm(tok, hidden_size=96), tok)

# Training: one LoRA step on the 7B, adapter saved as users save it.
model = get_peft_model(AutoModelForCausalLM.from_pretrained(base_7b),
                       LoraConfig(r=8, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
batch = tok(tiny.texts(4), return_tensors="pt", padding=True)
optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-2)
model(**batch, labels=batch["input_ids"]).loss.backward()
optimizer.step()
adapter_dir = tempfile.mkdtemp(prefix="kb-adapter-")
model.save_pretrained(adapter_dir)
trained = {k: v.detach().clone() for k, v in model.state_dict().items() if "lora_" in k}

# Inference script: the base is picked by hand.
base_path = base_13b
base = AutoModelForCausalLM.from_pretrained(base_path)
model = PeftModel.from_pretrained(base, adapter_dir, ignore_mismatched_sizes=True)  # "skip what does not fit"

loaded = model.state_dict()
same = sum(k in loaded and loaded[k].shape == v.shape and torch.equal(loaded[k], v) for k, v in trained.items())
print(f"adapter trained on {PeftConfig.from_pretrained(adapter_dir).base_model_name_or_path}, loaded onto {base_path}")
print(f"kb-measure adapter_tensors_trained={len(trained)}")
print(f"kb-measure adapter_tensors_loaded={same}")
