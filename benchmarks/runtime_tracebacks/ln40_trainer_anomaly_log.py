# family: loss-nan
# set: runtime-40
# expect: nan values|returned nan
# note: Trainer with torch.autograd.set_detect_anomaly(True) and a custom compute_loss taking the log of a probability that underflows to 0
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class LogLossTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        out = model(**inputs)
        probs = torch.softmax(out.logits * 1e4, dim=-1)
        return -torch.log(probs).mean()


torch.autograd.set_detect_anomaly(True)
tok = _tiny.tokenizer()
LogLossTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
               data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
