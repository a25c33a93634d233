# family: device-side-assert
# case: KB0021-label-id-beyond-num-labels
# set: runtime-42
# expect: out of bounds
# note: torch.multiprocessing.spawn, 2 gloo ranks: a sequence classifier of 3 labels trained on label ids up to 4
import os
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import _tiny
from transformers import LlamaForSequenceClassification


def worker(rank, world, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=world)
    model = torch.nn.parallel.DistributedDataParallel(LlamaForSequenceClassification(_tiny.llama_config(num_labels=3)))
    out = model(input_ids=torch.randint(4, 20, (2, 6)), labels=torch.tensor([1, 4]))
    out.loss.backward()


if __name__ == "__main__":
    import socket
    s = socket.socket(); s.bind(("127.0.0.1", 0)); port = s.getsockname()[1]; s.close()  # noqa: E702
    mp.spawn(worker, args=(2, port), nprocs=2)
