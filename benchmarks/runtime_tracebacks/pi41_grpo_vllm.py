# family: package-install
# set: runtime-41
# expect: vllm|vLLM
# note: GRPOConfig(use_vllm=True) in an environment without vLLM
import _tiny
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

ds = Dataset.from_dict({"prompt": ["hello world"] * 4})
cfg = GRPOConfig(output_dir="/tmp/grpo41-vllm", max_steps=1, per_device_train_batch_size=2, num_generations=2, use_vllm=True, report_to=[], use_cpu=True)
GRPOTrainer(model=_tiny.llama(), reward_funcs=lambda completions, **kw: [0.0] * len(completions), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
