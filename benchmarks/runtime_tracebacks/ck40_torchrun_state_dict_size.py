# family: checkpoint-io
# set: runtime-40
# mode: torchrun
# expect: size mismatch
# note: torchrun, 2 gloo ranks; each rank loads a state dict saved from a model with a larger vocabulary (tokens added then)
import os, tempfile  # noqa: E401 (one line: the kept output's line numbers)
import torch
import torch.distributed as dist
import _tiny

dist.init_process_group("gloo")
path = os.path.join(tempfile.gettempdir(), f"r40-sd-{os.getpid()}.pt")
torch.save(_tiny.llama(vocab_size=40).state_dict(), path)
model = _tiny.llama()
model.load_state_dict(torch.load(path))
