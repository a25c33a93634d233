# family: cuda-setup
# set: runtime-44
# wave: 2
# expect: CUDA|cuda|ATen_cuda
# note: a Trainer subclass seeds its shuffling sampler with a generator made on 'cuda' (copied from a GPU script), torch the CPU build
import torch
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class SeededTrainer(Trainer):
    def _get_train_sampler(self, train_dataset=None):
        g = torch.Generator(device="cuda")
        g.manual_seed(42)
        return torch.utils.data.RandomSampler(train_dataset or self.train_dataset, generator=g)


tok = _tiny.tokenizer()
trainer = SeededTrainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                        data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
