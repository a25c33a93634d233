# family: hub-access
# set: runtime-39
# wave: 1
# mode: accelerate
# expect: not found|RepositoryNotFound|401
# note: accelerate launch, 2 CPU processes, a misspelt model id (stand-in Hub answers 401 RepoNotFound)
import _hub
_hub.serve("notfound")
from accelerate import Accelerator
from transformers import AutoTokenizer

acc = Accelerator(cpu=True)
tok = AutoTokenizer.from_pretrained("mistralai/Mistrall-7B-v0.1")
