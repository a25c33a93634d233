# family: cuda-setup
# case: KB0031-cuda-call-on-cpu-only-torch
# set: runtime-43
# expect: CUDA|cuda|RemoteTraceback
# note: datasets map with num_proc=2 computing embeddings with tensors moved .to('cuda') on a CPU-only torch (the worker's error chained)
import torch
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
emb = torch.nn.Embedding(32, 4)


def embed(row):
    ids = torch.tensor(tok(row["text"])["input_ids"]).to("cuda")
    return {"vec": emb.to("cuda")(ids).mean(0).tolist()}


ds = _tiny.text_dataset().map(embed, num_proc=2)
