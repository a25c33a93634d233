# family: api-drift
# set: runtime-40
# mode: torchrun
# expect: unexpected keyword argument
# note: torchrun, 2 gloo ranks; an old SFT recipe passes tokenizer= to SFTTrainer (processing_class in trl 1.x)
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft40-tok", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), tokenizer=_tiny.tokenizer()).train()
