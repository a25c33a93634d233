# family: cuda-setup
# set: runtime-40
# mode: ipython
# expect: Torch not compiled with CUDA enabled
# note: notebook; the inputs of a generate() call moved with .to("cuda") on a CPU-only runtime
import _tiny
model, tok = _tiny.llama(), _tiny.tokenizer()
# %%
inputs = tok("hello world", return_tensors="pt").to("cuda")
out = model.generate(**inputs, max_new_tokens=4)
