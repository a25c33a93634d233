# family: checkpoint-io
# set: runtime-44
# wave: 2
# mode: accelerate
# expect: JSONDecodeError|Expecting|trainer_state
# note: accelerate launch, 2 processes: Trainer resumes the latest checkpoint (resume_from_checkpoint=True), whose trainer_state.json is an empty file left by a full disk
import os
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

out = "/tmp/runtime44/acc-resume-out"
ckpt = os.path.join(out, "checkpoint-4")
if int(os.environ.get("RANK", "0")) == 0 and not os.path.exists(ckpt):
    _tiny.llama().save_pretrained(ckpt)
    open(os.path.join(ckpt, "trainer_state.json"), "w").close()
tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(output_dir=out), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train(resume_from_checkpoint=True)
