# family: loss-nan
# set: runtime-44
# wave: 2
# mode: torchrun
# expect: nan|NaN
# note: torchrun, 2 gloo ranks: a Trainer subclass checks the loss in compute_loss and stops on NaN; every label of the batches is -100 (prompts masked, answers truncated)
import torch
import _tiny
from transformers import Trainer, default_data_collator


class CheckedTrainer(Trainer):
    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        outputs = model(**inputs)
        if torch.isnan(outputs.loss):
            raise RuntimeError(f"NaN loss detected at step {self.state.global_step}")
        return (outputs.loss, outputs) if return_outputs else outputs.loss


tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok, pad_to=8).map(lambda r: {"labels": [-100] * 8})
trainer = CheckedTrainer(model=_tiny.llama(), args=_tiny.args(ddp_backend="gloo"), train_dataset=ds,
                         data_collator=default_data_collator)
trainer.train()
