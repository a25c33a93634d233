# family: training-data
# set: runtime-43
# mode: accelerate
# expect: did not return a loss|loss
# note: accelerate launch, 2 processes: Trainer given the bare LlamaModel (AutoModel, no LM head) on tokenized rows with labels
import _tiny
from transformers import DataCollatorForLanguageModeling, LlamaModel, Trainer

tok = _tiny.tokenizer()
model = LlamaModel(_tiny.llama_config())
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
