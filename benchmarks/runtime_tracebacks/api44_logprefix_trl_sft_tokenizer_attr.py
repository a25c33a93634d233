# family: api-drift
# set: runtime-44
# mode: logprefix
# expect: has no attribute|AttributeError|tokenizer
# note: container log: a callback of an older trl recipe reads trainer.tokenizer after SFTTrainer's training (renamed processing_class)
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft-out", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True,
                save_strategy="no")
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer())
trainer.train()
trainer.tokenizer.save_pretrained("/tmp/sft-out")
