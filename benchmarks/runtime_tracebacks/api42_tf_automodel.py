# family: api-drift
# set: runtime-42
# expect: cannot import name 'TFAutoModelForCausalLM'|TFAutoModel
# note: import of TensorFlow's TFAutoModelForCausalLM from transformers 5 (TensorFlow classes removed)
from transformers import TFAutoModelForCausalLM

model = TFAutoModelForCausalLM.from_pretrained("gpt2")
