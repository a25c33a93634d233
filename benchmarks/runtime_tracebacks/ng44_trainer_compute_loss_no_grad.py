# family: no-grad-fn
# set: runtime-44
# expect: does not require grad|grad_fn
# note: a Trainer subclass reuses an evaluation helper decorated with @torch.no_grad() as its compute_loss
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class MyTrainer(Trainer):
    @torch.no_grad()
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        return (outputs.loss, outputs) if return_outputs else outputs.loss


tok = _tiny.tokenizer()
trainer = MyTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                    data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
