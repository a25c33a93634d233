# family: hub-access
# set: runtime-44
# expect: gated|restricted|403|401
# note: GRPOTrainer given a reward model by its Hub id; the Hub refuses the gated repo
import _hub
_hub.serve("gated")
import _tiny
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

data = Dataset.from_dict({"prompt": ["hello", "the cat"] * 2})
cfg = GRPOConfig(output_dir="/tmp/grpo-out", max_steps=1, per_device_train_batch_size=2, num_generations=2,
                 max_completion_length=4, report_to=[], use_cpu=True)
trainer = GRPOTrainer(model=_tiny.llama(), reward_funcs="meta-llama/Llama-Guard-3-8B", args=cfg, train_dataset=data,
                      processing_class=_tiny.tokenizer())
