# family: api-drift
# set: runtime-41
# expect: tokenizer|unexpected keyword
# note: GRPOTrainer(tokenizer=...) as older trainers took it (now processing_class)
import _tiny
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

ds = Dataset.from_dict({"prompt": ["hello world"] * 4})
cfg = GRPOConfig(output_dir="/tmp/grpo41-tok", max_steps=1, per_device_train_batch_size=2, num_generations=2, report_to=[], use_cpu=True)
GRPOTrainer(model=_tiny.llama(), reward_funcs=lambda completions, **kw: [0.0] * len(completions), args=cfg,
            train_dataset=ds, tokenizer=_tiny.tokenizer())
