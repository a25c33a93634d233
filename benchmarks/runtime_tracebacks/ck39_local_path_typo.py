# family: hub-access
# set: runtime-39
# wave: 1
# expect: not a valid model identifier|Repo id|HFValidationError|local folder|does not appear|Incorrect path
# note: from_pretrained of a checkpoint folder path that does not exist (the run saved checkpoint-400, not -500)
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained("./outputs/checkpoint-500")
