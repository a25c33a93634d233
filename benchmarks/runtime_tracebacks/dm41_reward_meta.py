# family: device-mismatch
# set: runtime-41
# expect: meta
# note: RewardTrainer on a reward model built under accelerate's init_empty_weights (never loaded)
import _tiny
from accelerate import init_empty_weights
from datasets import Dataset
from transformers import LlamaForSequenceClassification
from trl import RewardConfig, RewardTrainer

with init_empty_weights():
    model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=1))
ds = Dataset.from_dict({"chosen": ["the cat sat on the mat"] * 4, "rejected": ["dog"] * 4})
cfg = RewardConfig(output_dir="/tmp/rw41-meta", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
RewardTrainer(model=model, args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
