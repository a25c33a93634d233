# family: model-unsupported
# case: KB0050-transformers-too-old-for-architecture
# set: runtime-41
# expect: does not recognize this architecture|model type
# note: GRPOTrainer(model=<folder>) whose config.json has a model_type this transformers does not know (a newer architecture)
import json
import os
import _tiny
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

folder = _tiny.saved_llama()
cfg = json.load(open(os.path.join(folder, "config.json")))
cfg["model_type"] = "qwen4_moe"
json.dump(cfg, open(os.path.join(folder, "config.json"), "w"))
ds = Dataset.from_dict({"prompt": ["hello world"] * 4})
args = GRPOConfig(output_dir="/tmp/grpo41-mt", max_steps=1, per_device_train_batch_size=2, num_generations=2, report_to=[], use_cpu=True)
GRPOTrainer(model=folder, reward_funcs=lambda completions, **kw: [0.0] * len(completions), args=args, train_dataset=ds)
