# family: shape-mismatch
# set: runtime-42
# wave: 2
# mode: torchrun
# expect: batch_size|match target|size
# note: torchrun, 2 gloo ranks: a sequence classifier's Trainer fed a batch of 2 rows with 3 labels each (multi-label ids as a list)
import torch
import _tiny
from transformers import LlamaForSequenceClassification, Trainer


class Rows(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        return {"input_ids": torch.randint(4, 20, (6,)), "labels": torch.tensor([0, 1, 1])}


model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=2))
Trainer(model=model, args=_tiny.args(ddp_backend="gloo"), train_dataset=Rows()).train()
