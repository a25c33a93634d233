# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-42
# expect: not found in the base model|Target modules
# note: DPOTrainer given a peft_config whose target modules (GPT-2's c_attn, c_proj) a Llama lacks
import _tiny
from datasets import Dataset
from peft import LoraConfig
from trl import DPOConfig, DPOTrainer

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"prompt": ["hello"] * 4, "chosen": ["world"] * 4, "rejected": ["cat"] * 4})
args = DPOConfig(output_dir="/tmp/dpo42", per_device_train_batch_size=2, max_steps=1, report_to=[], use_cpu=True)
trainer = DPOTrainer(model=_tiny.llama(), args=args, train_dataset=ds, processing_class=tok,
                     peft_config=LoraConfig(r=4, target_modules=["c_attn", "c_proj"], task_type="CAUSAL_LM"))
