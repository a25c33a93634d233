# family: checkpoint-io
# set: runtime-41
# mode: nbclient
# expect: Weights only load failed|weights_only
# note: a notebook loading a checkpoint that pickled the run's argparse.Namespace beside the weights (torch.load's weights_only default)
import argparse
import tempfile
import torch
import _tiny

path = tempfile.mktemp(suffix=".ckpt")
torch.save({"state_dict": _tiny.llama().state_dict(), "args": argparse.Namespace(lr=1e-4, epochs=3)}, path)
# %%
ckpt = torch.load(path)
