# family: api-drift
# set: runtime-40
# expect: has no attribute
# note: a Trainer subclass from a 2023 repo reading self.use_cuda_amp (gone from Trainer)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class MyTrainer(Trainer):
    def training_step(self, model, inputs, num_items_in_batch=None):
        if self.use_cuda_amp:
            pass
        return super().training_step(model, inputs, num_items_in_batch)


tok = _tiny.tokenizer()
MyTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
          data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
