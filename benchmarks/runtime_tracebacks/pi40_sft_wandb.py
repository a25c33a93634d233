# family: package-install
# set: runtime-40
# expect: wandb
# note: SFTTrainer with report_to="wandb" in an environment without wandb
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft40-wandb", max_steps=2, per_device_train_batch_size=2, report_to="wandb", use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer()).train()
