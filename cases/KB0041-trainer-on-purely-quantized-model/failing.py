"""A 4-bit model handed straight to the Trainer, without LoRA adapters.

The checkpoint (a tiny Llama with random weights, saved and loaded as users do) is loaded in 4-bit
NF4 with bitsandbytes; its weights are frozen integers, so there is nothing the Trainer could train.
"""

import tempfile

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
folder = tiny.saved(tiny.causal_lm(tok, hidden_size=256, intermediate_size=688), tok)
model = AutoModelForCausalLM.from_pretrained(folder, device_map={"": 0}, quantization_config=BitsAndBytesConfig(
    load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16))
rows = [{"input_ids": ids, "labels": ids} for ids in tok(tiny.texts(8))["input_ids"]]
args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="kb0041-"), per_device_train_batch_size=1, max_steps=2,
                         report_to="none", disable_tqdm=True, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=rows)
trainer.train()
print("kb-measure steps=2")
