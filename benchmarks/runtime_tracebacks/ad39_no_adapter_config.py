# family: adapter-config
# set: runtime-39
# wave: 1
# expect: adapter_config.json
# note: PeftModel.from_pretrained on a folder that holds the merged model, not an adapter
import _tiny
from peft import PeftModel

folder = _tiny.saved_llama()
model = PeftModel.from_pretrained(_tiny.llama(), folder)
