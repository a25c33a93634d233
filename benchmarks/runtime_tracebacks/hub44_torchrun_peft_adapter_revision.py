# family: hub-access
# set: runtime-44
# mode: torchrun
# expect: Revision|revision|404|not found
# note: torchrun, 2 gloo ranks: PeftModel.from_pretrained of an adapter at a revision (branch) that does not exist on the Hub
import _hub
_hub.serve("revision")
import _tiny
from peft import PeftModel

model = PeftModel.from_pretrained(_tiny.llama(), "acme-ai/llama-sft-lora", revision="v2-epoch3")
