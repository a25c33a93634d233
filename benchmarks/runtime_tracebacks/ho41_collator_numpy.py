# family: host-oom
# set: runtime-41
# expect: Unable to allocate|MemoryError
# note: Trainer with a collator that builds a dense (batch, vocab, vocab) one-hot array in NumPy
import numpy as np
import torch
import _tiny
from transformers import Trainer


def collate(rows):
    ids = [r["input_ids"] for r in rows]
    onehot = np.zeros((len(ids), 200_000, 200_000), dtype=np.float32)
    return {"input_ids": torch.tensor(ids), "labels": torch.tensor(ids), "onehot": torch.from_numpy(onehot)}


tok = _tiny.tokenizer()
Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok, pad_to=8), data_collator=collate).train()
