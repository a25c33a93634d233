# family: hub-access
# set: runtime-39
# wave: 2
# mode: ipython
# expect: Repo id must|HFValidationError
# note: notebook; a model id pasted with its huggingface.co URL prefix
from transformers import AutoTokenizer
# %%
model_id = "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct"
# %%
tok = AutoTokenizer.from_pretrained(model_id)
