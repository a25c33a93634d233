# family: hub-access
# expect: Revision|revision
# note: from_pretrained(revision=...) naming a branch that does not exist
import _hub
_hub.serve("revision")
from transformers import AutoConfig

config = AutoConfig.from_pretrained("openai-community/gpt2", revision="v2.0")
