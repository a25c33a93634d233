# family: api-drift
# set: runtime-40
# expect: cannot import name
# note: a utility module of an older training repo importing is_torch_tpu_available from transformers
from transformers import is_torch_tpu_available

print(is_torch_tpu_available())
