# family: loss-nan
# set: runtime-44
# expect: nan|NaN
# note: Trainer on rows whose prompt was masked to -100 and whose answer the max_length truncation cut off (every label -100: 0/0), with a callback that stops the run on a NaN loss
import math
import _tiny
from transformers import Trainer, TrainerCallback, default_data_collator


class StopOnNan(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kwargs):
        if logs and "loss" in logs and not math.isfinite(logs["loss"]):
            raise ValueError(f"Loss became {logs['loss']} at step {state.global_step}, stopping")


tok = _tiny.tokenizer()
ds = _tiny.tokenized(tok, pad_to=8).map(lambda r: {"labels": [-100] * 8})
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(logging_nan_inf_filter=False), train_dataset=ds,
                  data_collator=default_data_collator, callbacks=[StopOnNan()])
trainer.train()
