# family: model-unsupported
# set: runtime-42
# expect: attn_implementation|attention
# note: from_pretrained with attn_implementation='flex_attention2' (a name transformers does not know)
import _tiny
from transformers import AutoModelForCausalLM

model = AutoModelForCausalLM.from_pretrained(_tiny.saved_llama(), attn_implementation="flex_attention2")
