# family: device-side-assert
# case: KB0021-label-id-beyond-num-labels
# set: runtime-43
# expect: out of bounds|Target|IndexError
# note: Trainer on a 3-class sequence classifier whose labels were mapped (datasets map, num_proc=2) from 1-based star ratings 1..3
import _tiny
from datasets import Dataset
from transformers import LlamaForSequenceClassification, Trainer

tok = _tiny.tokenizer()
ds = Dataset.from_dict({"text": ["the cat sat", "hello world", "the dog sat on the mat", "a cat"] * 2, "stars": [1, 2, 3, 3] * 2})
ds = ds.map(lambda r: {**tok(r["text"], padding="max_length", max_length=8), "labels": r["stars"]}, num_proc=2,
            remove_columns=["text", "stars"])
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=3))
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=ds)
trainer.train()
