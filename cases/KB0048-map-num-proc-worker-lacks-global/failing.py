"""Tokenize a dataset with Dataset.map(num_proc=2) in worker processes started with "spawn".

The tokenizer is created under `if __name__ == "__main__":`. A spawned worker imports this file as
`__mp_main__`, so that block does not run there; dill ships `tokenize` by value with a reference to the
worker's own `__main__` globals, where `tokenizer` was never defined. "spawn" is what multiprocess uses on
Windows, and what a script must set to use CUDA in map workers (CUDA does not survive a fork). Tokenizer built offline: nothing is downloaded.
"""

import multiprocess
from datasets import Dataset

from kb.fixtures import tiny


def tokenize(batch):
    return tokenizer(batch["text"], truncation=True, max_length=16)


if __name__ == "__main__":
    multiprocess.set_start_method("spawn")
    tokenizer = tiny.tokenizer()
    dataset = Dataset.from_dict({"text": [f"the model reads line {i}" for i in range(64)]})
    tokenized = dataset.map(tokenize, batched=True, num_proc=2, remove_columns=["text"])
    print(f"kb-measure rows={len(tokenized)}")
