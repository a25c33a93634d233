# family: training-data
# set: runtime-40
# mode: logprefix
# expect: prompt|text|column|KeyError
# note: a containerised job's log; SFTConfig(dataset_text_field="prompt") on a dataset whose column is "text"
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft40-field", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True,
                dataset_text_field="prompt")
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer()).train()
