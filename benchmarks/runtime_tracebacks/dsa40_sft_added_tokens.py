# family: device-side-assert
# set: runtime-40
# expect: index out of range
# note: SFTTrainer; special tokens added to the tokenizer, model embeddings never resized (on CPU the IndexError form)
import _tiny
from trl import SFTConfig, SFTTrainer

tok = _tiny.tokenizer()
tok.add_special_tokens({"additional_special_tokens": [f"<tool_{i}>" for i in range(40)]})
from datasets import Dataset
ds = Dataset.from_dict({"text": ["<tool_30> the cat sat <tool_39>", "hello <tool_35> world"] * 4})
cfg = SFTConfig(output_dir="/tmp/sft40-added", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=tok).train()
