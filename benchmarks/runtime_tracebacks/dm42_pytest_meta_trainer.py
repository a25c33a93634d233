# family: device-mismatch
# set: runtime-42
# mode: pytest
# expect: meta
# note: pytest: a test trains a Llama built on the meta device (torch.device('meta') context) with Trainer
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


def test_one_step():
    tok = _tiny.tokenizer()
    with torch.device("meta"):
        model = _tiny.llama()
    trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                      data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
    trainer.train()
