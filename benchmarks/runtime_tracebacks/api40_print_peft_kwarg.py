# family: api-drift
# set: runtime-40
# expect: unexpected keyword argument
# note: a training script that prints the failure: prepare_model_for_kbit_training(use_gradient_checkpointing=..., gradient_checkpointing=...) old keyword
import _tiny
from peft import prepare_model_for_kbit_training

try:
    model = prepare_model_for_kbit_training(_tiny.llama(), gradient_checkpointing=True)
except TypeError as e:
    print("Error:", e)
