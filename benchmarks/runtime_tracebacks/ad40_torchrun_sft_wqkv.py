# family: adapter-config
# set: runtime-40
# mode: torchrun
# expect: not found in the base model
# note: torchrun, 2 gloo ranks; SFTTrainer(peft_config=...) with MPT's Wqkv targeted on a Llama
import _tiny
from peft import LoraConfig
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft40-wqkv", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer(),
           peft_config=LoraConfig(r=8, target_modules=["Wqkv", "out_proj"], task_type="CAUSAL_LM")).train()
