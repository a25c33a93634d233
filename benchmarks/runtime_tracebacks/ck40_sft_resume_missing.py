# family: checkpoint-io
# set: runtime-40
# expect: checkpoint
# note: SFTTrainer.train(resume_from_checkpoint=...) naming a checkpoint folder deleted by save_total_limit
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft40-resume", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer())
trainer.train(resume_from_checkpoint="/tmp/sft40-resume/checkpoint-600")
