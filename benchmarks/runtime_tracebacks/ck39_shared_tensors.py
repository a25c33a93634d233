# family: checkpoint-io
# set: runtime-39
# wave: 1
# expect: share memory
# note: safetensors save_file of a model state dict with tied input/output embeddings
import _tiny
from safetensors.torch import save_file

model = _tiny.llama(tie_word_embeddings=True)
save_file(model.state_dict(), "/tmp/runtime39-tied.safetensors")
