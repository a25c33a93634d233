"""Generate test images from a small StyleGAN-like generator during training and keep them."""

import ctypes

import torch

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
ITERATIONS, WARMUP, BATCH = 12, 2, 8


def block(channels: int) -> list[torch.nn.Module]:
    return [
        torch.nn.Upsample(scale_factor=2),
        torch.nn.Conv2d(channels, channels, 3, padding=1),
        torch.nn.LeakyReLU(0.2),
    ]


generator = torch.nn.Sequential(
    torch.nn.Unflatten(1, (64, 4, 4)),
    *block(64), *block(64), *block(64), *block(64),  # 4x4 -> 64x64
    torch.nn.Conv2d(64, 3, 1),
    torch.nn.Tanh(),
).to(device)


class MallInfo2(ctypes.Structure):
    _fields_ = [(name, ctypes.c_size_t) for name in (
        "arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")]


def memory_in_use() -> int:
    """Bytes held by live allocations: the CUDA caching allocator's count, or glibc malloc's on CPU."""
    if device == "cuda":
        torch.cuda.synchronize()
        return torch.cuda.memory_allocated()
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    return info.uordblks + info.hblkhd


images = []
for step in range(ITERATIONS):
    if step == WARMUP:
        start = memory_in_use()
    z = torch.randn(BATCH, 64 * 4 * 4, device=device)
    with torch.no_grad():
        images.append(generator(z))

image_bytes = images[0].numel() * images[0].element_size()
growth = (memory_in_use() - start) / (ITERATIONS - WARMUP)
print(f"kept {len(images)} image batches of {image_bytes / 2**20:.2f} MiB each")
print(f"memory grew {growth / 2**20:.2f} MiB per generated batch on {device}")
print(f"kb-measure growth_mib_per_batch={growth / 2**20:.3f}")
print(f"kb-measure growth_ratio={growth / image_bytes:.2f}")
