# family: host-oom
# set: runtime-43
# wave: 2
# expect: No executable batch size|reached zero|allocate
# note: Trainer(auto_find_batch_size=True) in a job whose memory cap (RLIMIT_AS) no batch size fits under
import resource
import torch
import _tiny
from transformers import Trainer

vm = int(next(line for line in open("/proc/self/status") if line.startswith("VmSize")).split()[1]) * 1024


class Big(torch.utils.data.Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, i):
        return {"input_ids": torch.zeros(2**27, dtype=torch.long), "labels": torch.zeros(2**27, dtype=torch.long)}


model = _tiny.llama()
resource.setrlimit(resource.RLIMIT_AS, (vm + 2**30, vm + 2**30))
trainer = Trainer(model=model, args=_tiny.args(auto_find_batch_size=True, per_device_train_batch_size=16), train_dataset=Big())
trainer.train()
