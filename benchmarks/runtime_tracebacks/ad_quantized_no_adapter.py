# family: adapter-config
# case: KB0041-trainer-on-purely-quantized-model
# expect: purely quantized
# note: Trainer on a 4-bit model (bitsandbytes CPU backend) without get_peft_model
import _tiny
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, DataCollatorForLanguageModeling, Trainer

folder = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(folder, quantization_config=BitsAndBytesConfig(load_in_4bit=True))
tok = _tiny.tokenizer()
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
