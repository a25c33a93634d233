# family: checkpoint-io
# set: runtime-41
# expect: zip archive|PytorchStreamReader|PyTorchFileReader|central directory|EOF
# note: Trainer resumes from a checkpoint whose optimizer.pt was cut off (the job was killed while saving)
import os
import tempfile
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
out = tempfile.mkdtemp(prefix="out-")
args = _tiny.args(output_dir=out, save_strategy="steps", save_steps=2)
Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok), data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
opt = os.path.join(out, "checkpoint-2", "optimizer.pt")
with open(opt, "r+b") as f:
    f.truncate(os.path.getsize(opt) // 2)
args = _tiny.args(output_dir=out, max_steps=4)
Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train(resume_from_checkpoint=os.path.join(out, "checkpoint-2"))
