# family: no-grad-fn
# set: runtime-43
# mode: torchrun
# expect: does not require grad|grad_fn
# note: torchrun, 2 gloo ranks: a Trainer subclass whose compute_loss rebuilds the loss with torch.tensor(loss.item()) to add a constant
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class OffsetTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        loss = torch.tensor(outputs.loss.item() + 0.1)
        return (loss, outputs) if return_outputs else loss


tok = _tiny.tokenizer()
trainer = OffsetTrainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo"), train_dataset=_tiny.tokenized(tok),
                        data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
