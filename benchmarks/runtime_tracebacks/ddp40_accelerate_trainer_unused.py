# family: ddp-reducer
# set: runtime-40
# mode: accelerate
# expect: Expected to have finished reduction|did not receive grad|unused
# note: accelerate launch, 2 CPU processes, Trainer with ddp_find_unused_parameters=False over a model with a head the loss never uses
import torch
import _tiny
from transformers import Trainer


class TwoHeads(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lm = _tiny.llama()
        self.aux = torch.nn.Linear(16, 2)

    def forward(self, input_ids, attention_mask=None, labels=None):
        return self.lm(input_ids=input_ids, attention_mask=attention_mask, labels=labels)


tok = _tiny.tokenizer()
data = _tiny.tokenized(tok, pad_to=8).map(lambda r: {"labels": r["input_ids"]})
Trainer(model=TwoHeads(), args=_tiny.args(max_steps=3, ddp_find_unused_parameters=False), train_dataset=data).train()
