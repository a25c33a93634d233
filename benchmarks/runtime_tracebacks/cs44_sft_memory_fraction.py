# family: cuda-setup
# set: runtime-44
# case: KB0031-cuda-call-on-cpu-only-torch
# expect: CUDA|cuda|compiled
# note: an SFT script caps its share of the GPU with torch.cuda.set_per_process_memory_fraction before training, on a machine whose torch is the CPU build
import torch
import _tiny
from trl import SFTConfig, SFTTrainer

torch.cuda.set_per_process_memory_fraction(0.9)
cfg = SFTConfig(output_dir="/tmp/sft-out", max_steps=1, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer())
trainer.train()
