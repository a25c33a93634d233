# family: package-install
# set: runtime-43
# wave: 2
# mode: torchrun
# expect: No module named|jieba
# note: torchrun, 2 gloo ranks: Trainer with a data_collator that segments Chinese text with jieba, not installed on the nodes
import _tiny
from datasets import Dataset
from transformers import Trainer

tok = _tiny.tokenizer()


def collate(rows):
    import jieba

    words = [" ".join(jieba.cut(r["text"])) for r in rows]
    batch = tok(words, padding=True, return_tensors="pt")
    batch["labels"] = batch["input_ids"].clone()
    return batch


trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo", remove_unused_columns=False),
                  train_dataset=Dataset.from_dict({"text": ["the cat sat", "hello world"] * 4}), data_collator=collate)
trainer.train()
