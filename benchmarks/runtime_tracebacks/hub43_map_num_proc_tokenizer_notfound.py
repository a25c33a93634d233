# family: hub-access
# set: runtime-43
# expect: not found|Repository|RepoNotFound|401|RemoteTraceback
# note: datasets map with num_proc=2 whose function loads a tokenizer by a misspelled repo id (the Hub answers 401 Repository not found)
import _hub
_hub.serve("notfound")
from datasets import Dataset

ds = Dataset.from_dict({"text": ["hello world"] * 8})


def tokenize(row):
    from transformers import AutoTokenizer

    tok = AutoTokenizer.from_pretrained("meta-llama/Llama-3-8B-Instruckt")
    return tok(row["text"])


ds = ds.map(tokenize, num_proc=2)
