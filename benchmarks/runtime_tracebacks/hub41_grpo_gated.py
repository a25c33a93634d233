# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-41
# expect: gated|restricted
# note: GRPOTrainer(model="<repo id>") of a gated repo (stand-in Hub answers 403 GatedRepo)
import _hub
_hub.serve("gated")
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

ds = Dataset.from_dict({"prompt": ["hello world"] * 4})
cfg = GRPOConfig(output_dir="/tmp/grpo41-gated", max_steps=1, per_device_train_batch_size=2, num_generations=2, report_to=[], use_cpu=True)
GRPOTrainer(model="meta-llama/Llama-3.2-1B-Instruct", reward_funcs=lambda completions, **kw: [0.0] * len(completions), args=cfg, train_dataset=ds)
