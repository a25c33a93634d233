# family: package-install
# set: runtime-43
# expect: liger|install
# note: GRPOConfig(use_liger_kernel=True) from a speed-up recipe, liger-kernel not installed
import _tiny
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer


def reward_len(completions, **kwargs):
    return [-len(c) for c in completions]


cfg = GRPOConfig(output_dir="/tmp/grpo43", use_liger_kernel=True, per_device_train_batch_size=2, num_generations=2,
                 max_completion_length=4, max_steps=1, report_to=[], use_cpu=True)
trainer = GRPOTrainer(model=_tiny.llama(), reward_funcs=reward_len, args=cfg, processing_class=_tiny.tokenizer(),
                      train_dataset=Dataset.from_dict({"prompt": ["hello world"] * 4}))
trainer.train()
