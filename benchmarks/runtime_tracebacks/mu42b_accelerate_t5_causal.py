# family: model-unsupported
# set: runtime-42
# wave: 2
# mode: accelerate
# expect: Unrecognized configuration class
# note: accelerate launch, 2 processes: AutoModelForCausalLM.from_config on a T5 config (an encoder-decoder)
from accelerate import Accelerator
from transformers import AutoModelForCausalLM, T5Config

acc = Accelerator(cpu=True)
model = AutoModelForCausalLM.from_config(T5Config(d_model=16, d_ff=32, num_layers=1, num_heads=2, vocab_size=32))
