# family: multi-gpu-launch
# set: runtime-44
# mode: torchrun-nnodes2
# expect: RendezvousTimeoutError|Rendezvous|rendezvous|timed out
# note: the first node of a 2-node torchrun launch (c10d rendezvous, join timeout 10 s) whose second node was never started
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo"), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
