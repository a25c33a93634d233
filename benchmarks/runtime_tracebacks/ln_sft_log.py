# family: loss-nan
# wave: 2
# expect: nan
# note: SFTTrainer log lines (trl's extra keys) with a NaN gradient norm (absurd learning rate)
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft-nan", max_steps=5, per_device_train_batch_size=2, report_to=[], use_cpu=True,
                learning_rate=1e12, logging_steps=1, disable_tqdm=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer())
trainer.train()
