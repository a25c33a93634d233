"""Tokenize a dataset with Dataset.map(num_proc=2) in spawned workers: pass the tokenizer in fn_kwargs.

fn_kwargs is pickled with the job and handed to every worker, so the function no longer depends on a global
that only the parent's `if __name__ == "__main__":` block defines.
"""

import multiprocess
from datasets import Dataset

from kb.fixtures import tiny


def tokenize(batch, tokenizer):
    return tokenizer(batch["text"], truncation=True, max_length=16)


if __name__ == "__main__":
    multiprocess.set_start_method("spawn")
    tokenizer = tiny.tokenizer()
    dataset = Dataset.from_dict({"text": [f"the model reads line {i}" for i in range(64)]})
    tokenized = dataset.map(tokenize, batched=True, num_proc=2, remove_columns=["text"], fn_kwargs={"tokenizer": tokenizer})
    print(f"kb-measure rows={len(tokenized)}")
