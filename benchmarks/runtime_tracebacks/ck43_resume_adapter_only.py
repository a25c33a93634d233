# family: checkpoint-io
# set: runtime-43
# expect: checkpoint|Can't find|valid
# note: Trainer.train(resume_from_checkpoint=...) on a plain model, pointed at a folder holding only a saved LoRA adapter
import tempfile
import _tiny
from peft import LoraConfig, get_peft_model
from transformers import DataCollatorForLanguageModeling, Trainer

folder = tempfile.mkdtemp(prefix="adapter-")
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"], task_type="CAUSAL_LM")).save_pretrained(folder)
tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train(resume_from_checkpoint=folder)
