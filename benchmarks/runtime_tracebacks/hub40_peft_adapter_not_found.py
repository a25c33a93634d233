# family: hub-access
# set: runtime-40
# expect: not found|Repository Not Found|Can't find|401|404
# note: PeftModel.from_pretrained of an adapter id with a typo (stand-in Hub answers 401 RepoNotFound)
import _hub
_hub.serve("notfound")
import _tiny
from peft import PeftModel

model = PeftModel.from_pretrained(_tiny.llama(), "someuser/llama-lora-alpca")
