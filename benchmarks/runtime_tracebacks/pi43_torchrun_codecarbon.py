# family: package-install
# set: runtime-43
# mode: torchrun
# expect: codecarbon|install
# note: torchrun, 2 gloo ranks: Trainer with report_to=['codecarbon'] in an image without codecarbon
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(report_to=["codecarbon"], ddp_backend="gloo"),
                  train_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
