# family: api-drift
# set: runtime-42
# wave: 2
# expect: apex|not a valid OptimizerNames
# note: Trainer with optim='adamw_apex_fused' and no apex installed (relabelled before scoring: transformers 5 no longer has the apex optimizer: "not a valid OptimizerNames", api-drift)
import _tiny
from transformers import Trainer

trainer = Trainer(model=_tiny.llama(), args=_tiny.args(optim="adamw_apex_fused"), train_dataset=_tiny.tokenized())
trainer.train()
