# family: api-drift
# set: runtime-43
# mode: nbclient
# expect: logging_dir|unexpected keyword
# note: a notebook run by jupyter execute: TrainingArguments(logging_dir='./logs') in its third cell (removed from transformers 5)
import _tiny
from transformers import Trainer, TrainingArguments
# %%
tok = _tiny.tokenizer()
train = _tiny.tokenized(tok, pad_to=8)
# %%
args = TrainingArguments(output_dir="out", logging_dir="./logs", logging_steps=10, per_device_train_batch_size=2,
                         report_to=["tensorboard"], use_cpu=True)
