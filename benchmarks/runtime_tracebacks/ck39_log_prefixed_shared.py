# family: checkpoint-io
# set: runtime-39
# wave: 1
# mode: logprefix
# expect: share memory
# note: a containerised job's log (timestamp and stream before every line); safetensors save of tied weights
import _tiny
from safetensors.torch import save_file

model = _tiny.llama(tie_word_embeddings=True)
save_file(dict(model.state_dict()), "/tmp/runtime39-tied2.safetensors")
