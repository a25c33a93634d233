# family: checkpoint-io
# set: runtime-44
# mode: torchrun
# expect: Size mismatch|size mismatch|shape|CheckpointException
# note: torchrun, 2 gloo ranks: torch.distributed.checkpoint saved from a run with a 32-token vocabulary, loaded into one resized to 40
import os
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import _tiny

dist.init_process_group("gloo")
folder = "/tmp/runtime44/dcp-step-100"
model = _tiny.llama()
dcp.save({"model": model.state_dict()}, checkpoint_id=folder)
dist.barrier()
resized = _tiny.llama(vocab_size=40)
state = {"model": resized.state_dict()}
dcp.load(state, checkpoint_id=folder)
