# family: dtype-mismatch
# set: runtime-44
# wave: 2
# expect: masked_fill|boolean|dtype
# note: a classifier's mean-pooling head masks padding with the integer attention mask (masked_fill with a long mask), trained with Trainer
import torch
import _tiny
from transformers import Trainer


class Pooled(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = _tiny.llama().model
        self.head = torch.nn.Linear(16, 2)

    def forward(self, input_ids, attention_mask, labels=None):
        h = self.backbone(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        h = h.masked_fill((1 - attention_mask).unsqueeze(-1), 0.0)
        logits = self.head(h.sum(1))
        return {"loss": torch.nn.functional.cross_entropy(logits, labels), "logits": logits}


rows = [{"input_ids": [1, 5, 6, 2], "attention_mask": [1, 1, 1, 1], "labels": 1}] * 4
collate = lambda b: {k: torch.tensor([r[k] for r in b]) for k in b[0]}
trainer = Trainer(model=Pooled(), args=_tiny.args(remove_unused_columns=False), train_dataset=rows, data_collator=collate)
trainer.train()
