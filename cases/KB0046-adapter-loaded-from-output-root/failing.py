"""Train a LoRA adapter with the Trainer, then load it from the run's output_dir.

The Trainer wrote the adapter only into output_dir/checkpoint-2 (its periodic save); nothing called
save_model, so output_dir itself holds no adapter_config.json and peft cannot find the adapter.
Tiny Llama with random weights and a local WordLevel tokenizer: nothing is downloaded.
"""

import tempfile

from datasets import Dataset
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import DataCollatorForLanguageModeling, Trainer, TrainingArguments

from kb.fixtures import tiny

tok = tiny.tokenizer()
model = get_peft_model(tiny.causal_lm(tok), LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
dataset = Dataset.from_dict({"text": tiny.texts(8)}).map(
    lambda batch: tok(batch["text"], truncation=True, max_length=32), batched=True, remove_columns=["text"])

output_dir = tempfile.mkdtemp()
args = TrainingArguments(output_dir=output_dir, per_device_train_batch_size=4, max_steps=2, save_strategy="steps",
                         save_steps=2, report_to="none", use_cpu=True)
trainer = Trainer(model=model, args=args, train_dataset=dataset, data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()

loaded = PeftModel.from_pretrained(tiny.causal_lm(tok), output_dir)
print(f"kb-measure lora_modules={sum(1 for name, _ in loaded.named_modules() if name.endswith('lora_A'))}")
