# family: hub-access
# set: runtime-44
# wave: 2
# mode: pyc
# expect: gated|restricted|403|Can't find
# note: python -c: PeftModel.from_pretrained of an adapter repo the Hub refuses as gated
import _hub
_hub.serve("gated")
import _tiny
from peft import PeftModel
model = PeftModel.from_pretrained(_tiny.llama(), "meta-llama/Llama-Guard-3-1B-lora")
