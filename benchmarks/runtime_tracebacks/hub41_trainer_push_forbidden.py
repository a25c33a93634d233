# family: hub-access
# set: runtime-41
# expect: 403|Forbidden|rights
# note: Trainer(push_to_hub=True, hub_model_id in an organisation the token cannot write to): the repo is created at init (stand-in Hub answers 403)
import os
os.environ["HF_TOKEN"] = "hf_" + "madeup" * 6
import _hub
_hub.serve("forbidden")
import _tiny
from transformers import Trainer

args = _tiny.args(push_to_hub=True, hub_model_id="meta-llama/my-finetune")
trainer = Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized())
trainer.push_to_hub()
