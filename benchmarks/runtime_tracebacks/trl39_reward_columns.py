# family: training-data
# set: runtime-39
# wave: 1
# expect: chosen|KeyError|Error
# note: RewardTrainer on a dataset of (text, score) rows instead of chosen/rejected pairs
import _tiny
from datasets import Dataset
from transformers import LlamaForSequenceClassification
from trl import RewardConfig, RewardTrainer

ds = Dataset.from_dict({"text": ["hello world"] * 8, "score": [1.0] * 8})
cfg = RewardConfig(output_dir="/tmp/rm39", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=1))
trainer = RewardTrainer(model=model, args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer())
trainer.train()
