# family: checkpoint-io
# set: runtime-39
# wave: 1
# expect: size mismatch|doesn't match|does not match
# note: resume from a checkpoint written by a run with another model width (config changed between runs)
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
out = "/tmp/runtime39-resume"
collate = DataCollatorForLanguageModeling(tok, mlm=False)
Trainer(model=_tiny.llama(hidden_size=32, intermediate_size=64), args=_tiny.args(output_dir=out, save_strategy="steps", save_steps=2),
        train_dataset=_tiny.tokenized(tok), data_collator=collate).train()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(output_dir=out, max_steps=4), train_dataset=_tiny.tokenized(tok),
                  data_collator=collate)
trainer.train(resume_from_checkpoint=out + "/checkpoint-2")
