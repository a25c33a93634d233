"""Attempt 10 of the incident: inputs and outputs on GPU 0, every decoder layer on GPU 1.

A Qwen2 checkpoint of the real architecture (small dimensions: this case is about devices, not
memory) is loaded in 4-bit with bitsandbytes, prepared for k-bit training, wrapped with LoRA and
trained with trl's SFTTrainer, as in the incident.
"""

import tempfile

import torch
from datasets import Dataset
from peft import get_peft_model, prepare_model_for_kbit_training
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import SFTConfig, SFTTrainer

from kb.fixtures.qwen import checkpoint, four_bit_config, lora_config, sft_rows

LAYERS = 8
path = checkpoint("small", layers=LAYERS)

# embed_tokens, rotary_emb, norm and lm_head on GPU 0 (where the batch and the labels are); layers on GPU 1.
device_map = {"model.embed_tokens": 0, "model.rotary_emb": 0, "model.norm": 0, "lm_head": 0}
device_map.update({f"model.layers.{i}": 1 for i in range(LAYERS)})

model = AutoModelForCausalLM.from_pretrained(path, quantization_config=four_bit_config(), device_map=device_map)
print("hf_device_map:", getattr(model, "hf_device_map", None))
print("lm_head on", model.lm_head.weight.device)
model = prepare_model_for_kbit_training(model)
model = get_peft_model(model, lora_config())

args = SFTConfig(
    output_dir=tempfile.mkdtemp(), max_steps=3, per_device_train_batch_size=1, learning_rate=1e-4,
    gradient_checkpointing=True, bf16=False, logging_steps=1, save_strategy="no", report_to=[], max_length=256, disable_tqdm=True,
)
trainer = SFTTrainer(
    model=model, args=args, train_dataset=Dataset.from_list(sft_rows(8, 256)),
    processing_class=AutoTokenizer.from_pretrained(path),
)
result = trainer.train()
print(f"kb-measure steps={result.global_step}")
print(f"kb-measure train_loss={result.training_loss:.4f}")
