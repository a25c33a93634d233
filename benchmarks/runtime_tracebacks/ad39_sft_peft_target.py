# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-39
# wave: 1
# expect: not found in the base model
# note: SFTTrainer(peft_config=...) with Falcon's query_key_value on a Llama
import _tiny
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft39-target", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer(),
                     peft_config=LoraConfig(r=8, target_modules=["query_key_value"], task_type="CAUSAL_LM"))
trainer.train()
