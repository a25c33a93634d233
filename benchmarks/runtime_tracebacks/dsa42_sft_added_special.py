# family: device-side-assert
# case: KB0014-embedding-index-out-of-range
# set: runtime-42
# expect: index out of range
# note: SFTTrainer after tokenizer.add_special_tokens (new ids beyond the model's embedding, never resized)
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

tok = _tiny.tokenizer()
tok.add_special_tokens({"additional_special_tokens": ["<tool>", "</tool>", "<think>", "</think>"] + [f"<x{i}>" for i in range(20)]})
ds = Dataset.from_dict({"text": ["<think> the cat </think> <tool> sat </tool> <x19>"] * 4})
args = SFTConfig(output_dir="/tmp/sft42-tok", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=args, train_dataset=ds, processing_class=tok).train()
