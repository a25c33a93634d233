# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-43
# expect: CUDA|cuda|compiled
# note: a Trainer callback that logs free GPU memory with torch.cuda.mem_get_info() at train begin, on a CPU-only torch
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer, TrainerCallback


class GpuMemory(TrainerCallback):
    def on_train_begin(self, args, state, control, **kwargs):
        free, total = torch.cuda.mem_get_info()
        print(f"free {free / 2**30:.1f} GiB of {total / 2**30:.1f} GiB")


tok = _tiny.tokenizer()
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False), callbacks=[GpuMemory()])
trainer.train()
