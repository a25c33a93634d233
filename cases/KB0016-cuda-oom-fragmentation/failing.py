"""Training steps whose activation sizes change from step to step, on a 24 GiB card (emulated by a cap).

The allocations follow a fine-tuning loop with variable-length batches, written out as tensors so
the sizes are exact (GiB = 2**30 bytes):
  - the model, its gradients and optimizer state: 3 GiB, alive throughout;
  - step 1, a long batch: 20 GiB of activations, freed after backward (the caching allocator keeps
    the 20 GiB segment for reuse);
  - step 2, shorter batches: 80 per-layer activations of 256 MiB carved out of that segment; the
    checkpointed layer inputs (every other one) stay alive for backward, the rest are freed;
  - the loss needs the logits: 2 GiB in one piece.
10 GiB are free inside the segment at that point, but in 256 MiB holes between live tensors.
"""

import os

import torch

GIB = 2**30
device = torch.device("cuda")
print(f"PYTORCH_CUDA_ALLOC_CONF={os.environ.get('PYTORCH_CUDA_ALLOC_CONF', '')!r}")


def empty(nbytes: int) -> torch.Tensor:
    return torch.empty(nbytes // 2, dtype=torch.bfloat16, device=device)


def report(label: str) -> None:
    allocated, reserved = torch.cuda.memory_allocated(), torch.cuda.memory_reserved()
    print(f"{label}: allocated {allocated / GIB:.2f} GiB, reserved {reserved / GIB:.2f} GiB")


model_state = empty(3 * GIB)
long_batch_activations = empty(20 * GIB)  # step 1
report("step 1 forward")
del long_batch_activations  # backward done
report("step 1 done")

layer_activations = [empty(GIB // 4) for _ in range(80)]  # step 2
checkpoints = layer_activations[::2]  # kept for backward
del layer_activations
report("step 2 forward")

logits = empty(2 * GIB)
report("step 2 logits")
peak_reserved = torch.cuda.max_memory_reserved()
print(f"kb-measure peak_reserved_gib={peak_reserved / GIB:.2f}")
print(f"kb-measure logits_allocated=1")
