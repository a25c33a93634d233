# family: api-drift
# set: runtime-39
# wave: 1
# expect: unexpected keyword|got an unexpected
# note: an old SFT recipe: SFTTrainer(tokenizer=..., packing=...) under trl 1.x
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft39-kw", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), tokenizer=_tiny.tokenizer(),
                     packing=True)
