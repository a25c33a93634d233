# family: checkpoint-io
# set: runtime-44
# mode: torchrun
# expect: JSONDecodeError|Expecting|trainer_state
# note: torchrun, 2 gloo ranks: resume_from_checkpoint of a checkpoint whose trainer_state.json was cut short when the job was preempted mid-save
import os
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
ckpt = "/tmp/runtime44/resume-out/checkpoint-2"
if int(os.environ.get("RANK", "0")) == 0:
    _tiny.llama().save_pretrained(ckpt)
    with open(os.path.join(ckpt, "trainer_state.json"), "w") as f:
        f.write('{"best_metric": null, "epoch": 0.5, "global_step": 2, "log_history": [{"loss": 3.4')
import torch.distributed as dist
args = _tiny.args(ddp_backend="gloo", output_dir="/tmp/runtime44/resume-out")
trainer = Trainer(model=_tiny.llama(), args=args, train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train(resume_from_checkpoint=ckpt)
