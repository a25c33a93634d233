# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# expect: not compiled with CUDA
# note: model.to("cuda") on a CPU-only torch wheel
import _tiny

model = _tiny.llama().to("cuda")
