# family: hub-access
# set: runtime-39
# wave: 1
# expect: Repo id must|HFValidationError|valid
# note: from_pretrained of a repo id with a space and a trailing slash typed into a notebook form
from transformers import AutoTokenizer

tok = AutoTokenizer.from_pretrained("meta llama/Llama-3.2-1B/")
