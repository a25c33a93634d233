# family: adapter-config
# case: KB0041-trainer-on-purely-quantized-model
# set: runtime-43
# expect: quantized|adapter|purely
# note: SFTTrainer on a model loaded in 8-bit (bitsandbytes CPU backend) without a peft_config
import _tiny
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
from trl import SFTConfig, SFTTrainer

model = AutoModelForCausalLM.from_pretrained(_tiny.saved_llama(), quantization_config=BitsAndBytesConfig(load_in_8bit=True))
cfg = SFTConfig(output_dir="/tmp/sft43d", max_steps=1, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=model, processing_class=_tiny.tokenizer(), train_dataset=_tiny.text_dataset(), args=cfg)
trainer.train()
