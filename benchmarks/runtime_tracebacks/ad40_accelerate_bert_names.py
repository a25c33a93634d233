# family: adapter-config
# set: runtime-40
# mode: accelerate
# expect: not found in the base model
# note: accelerate launch, 2 CPU processes; BERT's attention names (query, value) targeted on a Llama
import _tiny
from accelerate import Accelerator
from peft import LoraConfig, get_peft_model

acc = Accelerator(cpu=True)
model = get_peft_model(_tiny.llama(), LoraConfig(r=8, target_modules=["query", "value"], task_type="CAUSAL_LM"))
model = acc.prepare(model)
