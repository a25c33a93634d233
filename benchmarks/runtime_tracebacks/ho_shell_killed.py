# family: host-oom
# mode: shellkill
# expect: Killed
# note: training log, then bash's report of the python process killed with SIGKILL (by a watchdog standing in for the OOM killer)
import time
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(max_steps=4), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
print("Loading checkpoint shards for merging...", flush=True)
time.sleep(60)
