# family: cuda-setup
# set: runtime-39
# wave: 2
# mode: ipython
# expect: deserialize object on a CUDA device
# note: notebook on a CPU machine; torch.load of a training state saved on a GPU (storages tagged cuda:0), no map_location
import io
import zipfile
import torch
buf = io.BytesIO()
torch.save({"epoch": 3, "optimizer": {"exp_avg": torch.zeros(4)}}, buf)
src = zipfile.ZipFile(io.BytesIO(buf.getvalue()))
with zipfile.ZipFile("/tmp/runtime39-gpu-state.pt", "w", zipfile.ZIP_STORED) as dst:
    for item in src.infolist():
        data = src.read(item)
        dst.writestr(item, data.replace(b"X\x03\x00\x00\x00cpu", b"X\x06\x00\x00\x00cuda:0") if item.filename.endswith("data.pkl") else data)
# %%
state = torch.load("/tmp/runtime39-gpu-state.pt")
