# family: api-drift
# set: runtime-43
# expect: num_items_in_batch|unexpected keyword
# note: a Trainer subclass from a 2023 repo overriding compute_loss(self, model, inputs, return_outputs=False) (no num_items_in_batch)
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class WeightedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False):
        outputs = model(**inputs)
        loss = outputs.loss * torch.tensor(0.5)
        return (loss, outputs) if return_outputs else loss


tok = _tiny.tokenizer()
trainer = WeightedTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                          data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
