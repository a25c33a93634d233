"""A 4-bit model handed to the Trainer with LoRA adapters attached (QLoRA).

The same 4-bit checkpoint; the fix prepares it for k-bit training and attaches trainable LoRA
adapters with peft before the Trainer sees it: the adapters train, the 4-bit weights stay frozen.
"""

import tempfile

import torch
from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
folder = tiny.saved(tiny.causal_lm(tok, hidden_size=256, intermediate_size=688), tok)
model = AutoModelForCausalLM.from_pretrained(folder, device_map={"": 0}, quantization_config=BitsAndBytesConfig(
    load_in_4bit=True, bnb_4bit_quant_type="nf4", bnb_4bit_compute_dtype=torch.bfloat16))
model = prepare_model_for_kbit_training(model)  # the fix: adapters on top of the quantized model
model = get_peft_model(model, LoraConfig(r=8, lora_alpha=16, target_modules="all-linear", task_type="CAUSAL_LM"))
rows = [{"input_ids": ids, "labels": ids} for ids in tok(tiny.texts(8))["input_ids"]]
args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="kb0041-"), per_device_train_batch_size=1, max_steps=2,
                         report_to="none", disable_tqdm=True, save_strategy="no")
trainer = Trainer(model=model, args=args, train_dataset=rows)
result = trainer.train()
print(f"kb-measure steps={result.global_step}")
print(f"kb-measure trainable_params={sum(p.numel() for p in model.parameters() if p.requires_grad)}")
