# family: api-drift
# set: runtime-43
# expect: save_safetensors|unexpected keyword
# note: SFTConfig(save_safetensors=False) from a 2024 recipe that saved .bin files (the argument is gone from transformers 5's TrainingArguments)
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft43b", max_steps=2, save_safetensors=False, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), processing_class=_tiny.tokenizer(), train_dataset=_tiny.text_dataset(), args=cfg)
trainer.train()
