# family: training-data
# set: runtime-41
# expect: prompt
# note: GRPOTrainer on a dataset whose column is "question" (no "prompt" column)
import _tiny
from datasets import Dataset
from trl import GRPOConfig, GRPOTrainer

ds = Dataset.from_dict({"question": ["hello world", "the cat"] * 4, "answer": ["a", "b"] * 4})
cfg = GRPOConfig(output_dir="/tmp/grpo41-np", max_steps=1, per_device_train_batch_size=2, num_generations=2,
                 max_completion_length=4, report_to=[], use_cpu=True)
GRPOTrainer(model=_tiny.llama(), reward_funcs=lambda completions, **kw: [1.0] * len(completions), args=cfg,
            train_dataset=ds, processing_class=_tiny.tokenizer()).train()
