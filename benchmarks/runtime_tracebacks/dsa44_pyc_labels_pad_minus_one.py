# family: device-side-assert
# set: runtime-44
# mode: pyc
# expect: out of bounds|Target -1|IndexError
# note: python -c: a hand-written collator pads labels with -1 (not -100) for a sequence-classification model trained with Trainer
import torch, _tiny
from transformers import LlamaForSequenceClassification, Trainer
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=3))
rows = [{"input_ids": [1, 5, 6, 2], "labels": 2}, {"input_ids": [1, 7, 2, 3], "labels": -1}] * 2
def collate(batch):
    return {"input_ids": torch.tensor([r["input_ids"] for r in batch]), "labels": torch.tensor([r["labels"] for r in batch])}
trainer = Trainer(model=model, args=_tiny.args(remove_unused_columns=False), train_dataset=rows, data_collator=collate)
trainer.train()
