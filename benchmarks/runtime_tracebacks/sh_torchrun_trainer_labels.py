# family: shape-mismatch
# mode: torchrun
# wave: 3
# expect: batch_size|size
# note: torchrun, Trainer on 2 gloo ranks; labels tokenized separately with another max_length than the inputs
import _tiny
from transformers import Trainer

tok = _tiny.tokenizer()
ds = _tiny.text_dataset().map(lambda r: {**tok(r["text"], padding="max_length", max_length=8),
                                         "labels": tok(r["text"], padding="max_length", max_length=6)["input_ids"]},
                              remove_columns=["text"])
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=ds)
trainer.train()
