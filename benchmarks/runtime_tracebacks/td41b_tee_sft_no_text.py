# family: training-data
# case: KB0024-sft-dataset-without-text-field
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: text|column|KeyError|messages|prompt
# note: torchrun --tee 3, 2 ranks: SFTTrainer on an instruction set with "instruction"/"output" columns (no text, messages or prompt/completion)
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

ds = Dataset.from_dict({"instruction": ["say hello"] * 8, "output": ["hello world"] * 8})
cfg = SFTConfig(output_dir="/tmp/sft41b-notext", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
