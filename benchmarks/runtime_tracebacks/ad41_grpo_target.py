# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-41
# expect: Target modules|not found in the base model
# note: GRPOTrainer with a LoraConfig whose target_modules name GPT-NeoX's fused attention (query_key_value) on a Llama
import _tiny
from peft import LoraConfig
from trl import GRPOConfig, GRPOTrainer
from datasets import Dataset

ds = Dataset.from_dict({"prompt": ["hello world", "the cat sat"] * 4})
cfg = GRPOConfig(output_dir="/tmp/grpo41-target", max_steps=1, per_device_train_batch_size=2, num_generations=2,
                 max_completion_length=4, report_to=[], use_cpu=True)
GRPOTrainer(model=_tiny.llama(), reward_funcs=lambda completions, **kw: [1.0] * len(completions), args=cfg,
            train_dataset=ds, processing_class=_tiny.tokenizer(),
            peft_config=LoraConfig(r=4, target_modules=["query_key_value"])).train()
