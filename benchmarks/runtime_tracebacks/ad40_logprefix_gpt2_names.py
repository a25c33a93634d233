# family: adapter-config
# set: runtime-40
# mode: logprefix
# expect: not found in the base model
# note: a containerised job's log (timestamp and stream before every line); Llama's gate_proj/up_proj targeted on a GPT-2
import torch
from peft import LoraConfig, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
gpt2 = GPT2LMHeadModel(GPT2Config(vocab_size=32, n_embd=16, n_layer=2, n_head=2, n_positions=32))
model = get_peft_model(gpt2, LoraConfig(r=8, target_modules=["gate_proj", "up_proj", "down_proj"]))
