# family: host-oom
# set: runtime-44
# expect: allocate|memory|DataLoader worker
# note: Trainer with dataloader_num_workers=2 under the job's memory cap (RLIMIT_AS); the collator of a worker builds a dense one-hot batch that cannot be allocated
import resource
import torch
import _tiny
from transformers import Trainer

vm = int(next(l for l in open("/proc/self/status") if l.startswith("VmSize")).split()[1]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (vm + 3 * 2**30, vm + 3 * 2**30))


def collate(rows):
    ids = torch.nn.utils.rnn.pad_sequence([torch.tensor(r["input_ids"]) for r in rows], batch_first=True)
    onehot = torch.zeros(ids.shape[0], 4096, 1024 * 1024)
    return {"input_ids": ids, "labels": ids, "onehot": onehot}


trainer = Trainer(model=_tiny.llama(), args=_tiny.args(dataloader_num_workers=2, remove_unused_columns=False),
                  train_dataset=_tiny.tokenized(), data_collator=collate)
trainer.train()
