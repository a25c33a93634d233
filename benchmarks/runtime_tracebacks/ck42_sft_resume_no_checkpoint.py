# family: checkpoint-io
# set: runtime-42
# expect: No valid checkpoint found|valid checkpoint
# note: SFTTrainer.train(resume_from_checkpoint=True) in a fresh output folder
import _tiny
from trl import SFTConfig, SFTTrainer

args = SFTConfig(output_dir="/tmp/sft42-fresh", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True,
                 save_strategy="no")
trainer = SFTTrainer(model=_tiny.llama(), args=args, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer())
trainer.train(resume_from_checkpoint=True)
