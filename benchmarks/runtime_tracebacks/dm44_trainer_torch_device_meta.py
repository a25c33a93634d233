# family: device-mismatch
# set: runtime-44
# expect: meta|Cannot copy out of meta tensor|to_empty
# note: a model built under `with torch.device('meta')` (to save RAM while building) handed to Trainer without loading weights
import torch
import _tiny
from transformers import AutoModelForCausalLM, DataCollatorForLanguageModeling, Trainer

with torch.device("meta"):
    model = AutoModelForCausalLM.from_config(_tiny.llama_config())
tok = _tiny.tokenizer()
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
