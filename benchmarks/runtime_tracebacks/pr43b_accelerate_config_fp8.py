# family: package-install
# set: runtime-43
# wave: 2
# mode: accelerate
# expect: fp8|transformer_engine|MS-AMP
# note: accelerate launch, 2 processes, with an `accelerate config` that chose fp8 (ACCELERATE_MIXED_PRECISION=fp8): a Trainer builds its Accelerator
import os
os.environ["ACCELERATE_MIXED_PRECISION"] = "fp8"
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
