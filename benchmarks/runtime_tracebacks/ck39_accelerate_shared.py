# family: checkpoint-io
# set: runtime-39
# wave: 2
# mode: accelerate
# expect: share memory
# note: accelerate launch, 2 processes; the main process saves the tied-weight model's state dict with safetensors save_file
import _tiny
from accelerate import Accelerator
from safetensors.torch import save_file

acc = Accelerator(cpu=True)
model = acc.prepare(_tiny.llama(tie_word_embeddings=True))
if acc.is_main_process:
    save_file(acc.unwrap_model(model).state_dict(), "/tmp/runtime39-acc-tied.safetensors")
acc.wait_for_everyone()
