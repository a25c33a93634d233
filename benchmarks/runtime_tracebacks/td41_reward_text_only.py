# family: training-data
# set: runtime-41
# expect: chosen|KeyError|columns
# note: RewardTrainer on a dataset with a single "text" column (no chosen/rejected pairs)
import _tiny
from transformers import LlamaForSequenceClassification
from trl import RewardConfig, RewardTrainer

model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=1))
cfg = RewardConfig(output_dir="/tmp/rw41-text", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
RewardTrainer(model=model, args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer()).train()
