# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# expect: CUDA
# note: tensors moved with .cuda() in a generation script, CPU-only torch
import _tiny

tok = _tiny.tokenizer()
model = _tiny.llama()
inputs = tok(["the cat sat"], return_tensors="pt")
inputs = {k: v.cuda() for k, v in inputs.items()}
print(model.generate(**inputs, max_new_tokens=4))
