# family: checkpoint-io
# wave: 3
# expect: EOF|Ran out of input|zip
# note: torch.load of an optimizer.pt left empty by a save the process never finished
import tempfile
import torch

path = tempfile.mktemp(suffix="optimizer.pt")
open(path, "wb").close()
state = torch.load(path, map_location="cpu", weights_only=True)
