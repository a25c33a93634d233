# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-41
# wave: 2
# expect: Target modules|not found|No modules were targeted
# note: RLOOTrainer with LoRA target_modules named after Falcon's fused attention (query_key_value, dense_h_to_4h) on a Llama
import _tiny
from datasets import Dataset
from peft import LoraConfig
from trl import RLOOConfig, RLOOTrainer

ds = Dataset.from_dict({"prompt": ["hello world", "the cat"] * 4})
cfg = RLOOConfig(output_dir="/tmp/rloo41b-target", max_steps=1, per_device_train_batch_size=2, num_generations=2,
                 max_completion_length=4, report_to=[], use_cpu=True)
RLOOTrainer(model=_tiny.llama(), reward_funcs=lambda completions, **kw: [1.0] * len(completions), args=cfg,
            train_dataset=ds, processing_class=_tiny.tokenizer(),
            peft_config=LoraConfig(r=4, target_modules=["query_key_value", "dense_h_to_4h"])).train()
