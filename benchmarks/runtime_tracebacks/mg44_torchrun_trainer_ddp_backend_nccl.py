# family: multi-gpu-launch
# set: runtime-44
# mode: torchrun
# expect: NCCL|nccl|backend
# note: torchrun, 2 ranks: TrainingArguments(ddp_backend='nccl') copied from a GPU recipe, run on a machine whose torch has no CUDA
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="nccl"), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
