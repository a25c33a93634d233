# family: adapter-config
# set: runtime-39
# wave: 1
# expect: target_modules
# note: LoraConfig without target_modules on a custom model class peft has no default mapping for
import torch
from peft import LoraConfig, get_peft_model


class Scorer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = torch.nn.Linear(16, 16)
        self.head = torch.nn.Linear(16, 1)

    def forward(self, x):
        return self.head(torch.relu(self.encoder(x)))


model = get_peft_model(Scorer(), LoraConfig(r=4, lora_alpha=8))
