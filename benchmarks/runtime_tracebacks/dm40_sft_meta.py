# family: device-mismatch
# set: runtime-40
# expect: meta
# note: SFTTrainer given a model built under init_empty_weights whose weights were never loaded
import _tiny
from accelerate import init_empty_weights
from transformers import LlamaForCausalLM
from trl import SFTConfig, SFTTrainer

with init_empty_weights():
    model = LlamaForCausalLM(_tiny.llama_config())
cfg = SFTConfig(output_dir="/tmp/sft40-meta", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=model, args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer()).train()
