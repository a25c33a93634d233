# family: dtype-mismatch
# set: runtime-42
# wave: 2
# expect: Long, Int|FloatTensor|indices|dtype
# note: a ProcessPoolExecutor scores batches whose token ids were made float by a NumPy normalisation step
from concurrent.futures import ProcessPoolExecutor
import numpy as np
import torch
import _tiny


def score(seed):
    model = _tiny.llama()
    ids = torch.from_numpy(np.random.default_rng(seed).integers(4, 20, (2, 6)) / 1.0)
    return model(input_ids=ids).logits.mean().item()


if __name__ == "__main__":
    with ProcessPoolExecutor(2) as pool:
        print(list(pool.map(score, range(2))))
