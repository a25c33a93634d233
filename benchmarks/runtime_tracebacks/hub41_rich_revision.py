# family: hub-access
# set: runtime-41
# expect: revision|Revision
# note: rich traceback; AutoTokenizer.from_pretrained(id, revision="v2.0") for a tag that does not exist (stand-in Hub answers 404 RevisionNotFound)
import _hub
_hub.serve("revision")
from rich.traceback import install

install(width=110)
from transformers import AutoTokenizer

tok = AutoTokenizer.from_pretrained("Qwen/Qwen2.5-0.5B", revision="v2.0")
