"""SFT with trl: the data options go into SFTConfig, with max_seq_length spelled max_length.

Tiny Llama from a config with random weights and a local WordLevel tokenizer: nothing is downloaded.
"""

import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tokenizer = tiny.tokenizer()
model = tiny.causal_lm(tokenizer)
dataset = Dataset.from_dict({"text": tiny.texts(8)})
args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=2, report_to="none", save_strategy="no", bf16=False,
                 max_length=64, dataset_text_field="text")

trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer)
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
