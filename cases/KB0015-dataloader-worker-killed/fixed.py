"""A fine-tuning input pipeline in a memory-limited container: every DataLoader worker loads its own
copy of the tokenized corpus, and there are many workers (the incident: dataloader_num_workers=32).

Run it under the cpu-ram1g profile: the runner puts the run in a 1 GiB memory cgroup, the scaled-down
stand-in for the incident's 60 GB container limit.
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

NUM_WORKERS = 4  # halved, as in the incident: ~330 MiB main + 4 x 128 MiB = ~840 MiB < 1 GiB
CORPUS_TOKENS = 32 * 2**20  # token ids (int32): 128 MiB, loaded once per process that reads samples
SEQ_LEN, BATCH = 512, 16


class TokenizedCorpus(Dataset):
    """Reads samples from the tokenized corpus, which it loads on first use in each process."""

    def __init__(self, num_samples: int) -> None:
        self.num_samples = num_samples
        self.tokens: np.ndarray | None = None  # loaded lazily: each worker loads its own copy

    def _load(self) -> np.ndarray:
        # Stands in for np.load / pyarrow / json + tokenizer: a private in-memory copy per process.
        return np.random.default_rng(0).integers(0, 32_000, size=CORPUS_TOKENS, dtype=np.int32)

    def __len__(self) -> int:
        return self.num_samples

    def __getitem__(self, index: int) -> torch.Tensor:
        if self.tokens is None:
            self.tokens = self._load()
        start = (index * SEQ_LEN) % (CORPUS_TOKENS - SEQ_LEN)
        return torch.from_numpy(self.tokens[start : start + SEQ_LEN].astype(np.int64))


embedding = torch.nn.Embedding(32_000, 64)
loader = DataLoader(TokenizedCorpus(num_samples=BATCH * 64), batch_size=BATCH, shuffle=True, num_workers=NUM_WORKERS)
steps = 0
for batch in loader:
    loss = embedding(batch).pow(2).mean()
    loss.backward()
    steps += 1
print(f"{steps} steps with {NUM_WORKERS} workers")
print(f"kb-measure steps={steps}")
