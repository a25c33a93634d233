# family: training-data
# case: KB0022-tokenizer-without-pad-token
# set: runtime-43
# mode: torchrun
# expect: pad|padding
# note: torchrun, 2 gloo ranks: Trainer with DataCollatorForSeq2Seq over a tokenizer without a pad token (rows of unequal length)
import _tiny
from transformers import DataCollatorForSeq2Seq, Trainer

tok = _tiny.tokenizer(pad=False)
ds = _tiny.text_dataset().map(lambda r: {**tok(r["text"]), "labels": tok(r["text"])["input_ids"]}, remove_columns=["text"])
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo"), train_dataset=ds,
                  data_collator=DataCollatorForSeq2Seq(tok))
trainer.train()
