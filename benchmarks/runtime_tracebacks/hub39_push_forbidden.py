# family: hub-access
# set: runtime-39
# wave: 1
# expect: 403|Forbidden|rights
# note: push_to_hub into an organisation the token cannot write to (stand-in Hub answers 403)
import _hub
_hub.serve("forbidden")
import _tiny

model = _tiny.llama()
model.push_to_hub("meta-llama/my-finetune", token="hf_" + "x" * 34)
