# family: dtype-mismatch
# case: KB0001-dtype-double-vs-float
# set: runtime-43
# mode: pyc
# expect: dtype|Double|Float|m1
# note: python -c: soft-prompt features computed in NumPy (float64) passed as inputs_embeds to a float32 Llama
import numpy as np, torch, _tiny
model = _tiny.llama()
feats = np.random.rand(2, 6, 16)
out = model(inputs_embeds=torch.from_numpy(feats))
