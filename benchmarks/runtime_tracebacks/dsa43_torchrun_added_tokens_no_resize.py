# family: device-side-assert
# case: KB0014-embedding-index-out-of-range
# set: runtime-43
# mode: torchrun
# expect: index out of range|IndexError
# note: torchrun, 2 gloo ranks: special tokens added to the tokenizer, resize_token_embeddings forgotten, Trainer step
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
tok.add_special_tokens({"additional_special_tokens": ["<tool>", "</tool>", "<think>", "</think>"] + [f"<x{i}>" for i in range(30)]})
ds = _tiny.text_dataset().map(lambda r: tok("<tool> " + r["text"] + " </tool> <x29>"), remove_columns=["text"])
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo"), train_dataset=ds,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
