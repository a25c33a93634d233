# family: api-drift
# set: runtime-43
# wave: 2
# mode: torchrun
# expect: batch_encode_plus|has no attribute
# note: torchrun, 2 gloo ranks: Trainer with a hand-written data_collator calling tokenizer.batch_encode_plus (removed in transformers 5)
import _tiny
from datasets import Dataset
from transformers import Trainer

tok = _tiny.tokenizer()


def collate(rows):
    batch = tok.batch_encode_plus([r["text"] for r in rows], padding=True, return_tensors="pt")
    batch["labels"] = batch["input_ids"].clone()
    return batch


trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo", remove_unused_columns=False),
                  train_dataset=Dataset.from_dict({"text": ["the cat sat", "hello world"] * 4}), data_collator=collate)
trainer.train()
