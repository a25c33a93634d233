# family: host-oom
# case: KB0015-dataloader-worker-killed
# set: runtime-42
# expect: killed by signal
# note: Trainer with dataloader_num_workers=2: one data worker is killed with SIGKILL (as the OOM killer does)
import os
import signal
import torch
import _tiny
from transformers import Trainer


class Rows(torch.utils.data.Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        ids = torch.randint(4, 20, (8,))
        return {"input_ids": ids, "labels": ids}


trainer = Trainer(model=_tiny.llama(), args=_tiny.args(dataloader_num_workers=2, max_steps=8), train_dataset=Rows())
trainer.train()
