# family: hub-access
# set: runtime-42
# expect: 403|Forbidden|rights
# note: a background upload thread pushes a LoRA to a namespace the token may not write
import _hub
_hub.serve("forbidden")
import os
import threading
import _tiny
from peft import LoraConfig, get_peft_model

model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj"]))


def upload():
    model.push_to_hub("meta-llama/my-adapter", token=os.environ.get("HF_WRITE_TOKEN", "not-a-token"))


t = threading.Thread(target=upload, name="hub-upload")
t.start()
t.join()
