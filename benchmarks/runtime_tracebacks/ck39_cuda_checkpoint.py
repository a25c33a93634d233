# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-39
# wave: 1
# expect: deserialize object on a CUDA device
# note: torch.load without map_location of a checkpoint written on a GPU machine (the file is as the GPU run wrote it: storages tagged cuda:0)
import io
import zipfile
import torch

buf = io.BytesIO()
torch.save({"step": 10, "weight": torch.randn(4, 4)}, buf)
src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
with zipfile.ZipFile("/tmp/runtime39-gpu.pt", "w", zipfile.ZIP_STORED) as dst:
    for item in src.infolist():
        data = src.read(item)
        if item.filename.endswith("data.pkl"):
            data = data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0")  # the storage's location tag
        dst.writestr(item, data)
state = torch.load("/tmp/runtime39-gpu.pt")
