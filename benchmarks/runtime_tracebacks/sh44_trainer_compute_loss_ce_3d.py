# family: shape-mismatch
# set: runtime-44
# expect: Expected target size|target size|size
# note: a Trainer subclass computes a weighted cross-entropy on logits [batch, seq, vocab] against labels [batch, seq] without flattening them
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class WeightedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        weight = torch.ones(outputs.logits.shape[-1])
        loss = torch.nn.functional.cross_entropy(outputs.logits, labels, weight=weight, ignore_index=-100)
        return (loss, outputs) if return_outputs else loss


tok = _tiny.tokenizer()
trainer = WeightedTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok, pad_to=8),
                          data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
