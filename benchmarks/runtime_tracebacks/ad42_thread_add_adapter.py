# family: package-install
# case: 
# set: runtime-42
# expect: please use a version >=
# note: a background thread attaches a LoRA through transformers' model.add_adapter with target modules the model lacks (relabelled before scoring: transformers 5.24's add_adapter refused peft 0.21.2 first, 'please use a version >= 0.22.0')
import threading
import _tiny
from peft import LoraConfig

model = _tiny.llama()


def attach():
    model.add_adapter(LoraConfig(r=4, target_modules=["Wqkv", "out_proj"]), adapter_name="sft")


t = threading.Thread(target=attach, name="adapter-loader")
t.start()
t.join()
