# family: device-side-assert
# case: KB0014-embedding-index-out-of-range
# expect: index out of range
# note: Trainer; tokenizer with added tokens, embeddings not resized (on CPU the IndexError form)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
tok.add_tokens([f"<extra_{i}>" for i in range(40)])
ds = _tiny.text_dataset().map(lambda r: tok(r["text"] + " <extra_30>"), remove_columns=["text"])
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=ds,
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
