# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-41
# expect: Target modules|not found in the base model|No modules were targeted
# note: RewardTrainer with LoRA target_modules copied from a GPT-2 recipe (c_attn) on a Llama reward model
import _tiny
from datasets import Dataset
from peft import LoraConfig
from transformers import LlamaForSequenceClassification
from trl import RewardConfig, RewardTrainer

model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=1))
ds = Dataset.from_dict({"chosen": ["the cat sat on the mat"] * 4, "rejected": ["dog"] * 4})
cfg = RewardConfig(output_dir="/tmp/rw41-target", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
RewardTrainer(model=model, args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer(),
              peft_config=LoraConfig(task_type="SEQ_CLS", r=4, target_modules=["c_attn", "c_proj"])).train()
