# family: api-drift
# set: runtime-44
# expect: TypeError|positional argument|unexpected keyword
# note: a Trainer subclass written for an older transformers overrides _maybe_log_save_evaluate with the old signature; Trainer calls it with more arguments
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class LoggingTrainer(Trainer):
    def _maybe_log_save_evaluate(self, tr_loss, model, trial, epoch, ignore_keys_for_eval):
        print("step", self.state.global_step)
        return super()._maybe_log_save_evaluate(tr_loss, None, model, trial, epoch, ignore_keys_for_eval)


tok = _tiny.tokenizer()
trainer = LoggingTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                         data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
