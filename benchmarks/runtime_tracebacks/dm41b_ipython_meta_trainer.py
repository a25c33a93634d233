# family: device-mismatch
# set: runtime-41
# wave: 2
# mode: ipython
# expect: meta
# note: IPython: Trainer on a model built under torch.device("meta") (meant to load weights into it later)
import torch
import _tiny
from transformers import Trainer
with torch.device("meta"):
    model = _tiny.llama()
# %%
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(pad_to=8))
trainer.train()
