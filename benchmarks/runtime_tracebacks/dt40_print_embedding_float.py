# family: dtype-mismatch
# set: runtime-40
# expect: Long|indices|Float
# note: a generation helper that prints its exception; token ids built with torch.tensor(list_of_floats) (read from a JSON of floats)
import torch
import _tiny

model = _tiny.llama()
ids = torch.tensor([[5.0, 6.0, 7.0]])
try:
    model.generate(ids, max_new_tokens=2)
except Exception as e:
    print(f"generation failed: {type(e).__name__}: {e}")
