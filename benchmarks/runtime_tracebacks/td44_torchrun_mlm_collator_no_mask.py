# family: training-data
# set: runtime-44
# mode: torchrun
# expect: mask token|mlm|masked language
# note: torchrun, 2 gloo ranks: a causal LM trained with DataCollatorForLanguageModeling left at its default mlm=True (the tokenizer has no mask token)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
collator = DataCollatorForLanguageModeling(tok)
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo"), train_dataset=_tiny.tokenized(tok),
                  data_collator=collator)
trainer.train()
