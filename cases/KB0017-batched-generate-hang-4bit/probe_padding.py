"""Probe for the batched-generate "hang": the padding mechanism (NOT a reproduction of a hang).

Batched sampling on a 4-bit model with no pad token set and right padding, where no row ever samples
EOS, so every row runs to max_new_tokens: the batch takes as long as its longest possible row, and
right padding puts pad positions between a prompt and its continuation. Measures seconds for one
prompt against a batch of 8, with left and right padding, and 8 temperatures run concurrently from
threads. Tiny random-weight Llama in 4-bit NF4; nothing downloaded. Prints one line per measurement.
"""

import tempfile
import threading
import time

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM

MAX_NEW = 256
torch.manual_seed(0)
path = tempfile.mkdtemp()
LlamaForCausalLM(LlamaConfig(
    vocab_size=1024, hidden_size=256, intermediate_size=512, num_hidden_layers=4, num_attention_heads=4,
    num_key_value_heads=4, max_position_embeddings=1024, bos_token_id=1, eos_token_id=2,  # no pad_token_id
)).save_pretrained(path)
model = AutoModelForCausalLM.from_pretrained(path, device_map={"": 0}, quantization_config=BitsAndBytesConfig(
    load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16, bnb_4bit_quant_type="nf4"))


def batch(size: int, side: str) -> dict[str, torch.Tensor]:
    lengths = [12 + 5 * i for i in range(size)]
    width = max(lengths)
    ids = torch.full((size, width), 2, dtype=torch.long)  # padded with EOS (no pad token): as users do
    mask = torch.zeros(size, width, dtype=torch.long)
    for row, n in enumerate(lengths):
        span = slice(width - n, width) if side == "left" else slice(0, n)
        ids[row, span] = torch.randint(3, 1024, (n,))
        mask[row, span] = 1
    return {"input_ids": ids.cuda(), "attention_mask": mask.cuda()}


def timed(size: int, side: str, temperature: float = 0.7) -> tuple[float, int]:
    torch.cuda.synchronize()
    start = time.perf_counter()
    out = model.generate(**batch(size, side), do_sample=True, temperature=temperature, max_new_tokens=MAX_NEW,
                         bad_words_ids=[[2]])  # no row ever emits EOS: every row runs to max_new_tokens
    torch.cuda.synchronize()
    return time.perf_counter() - start, out.shape[1]


timed(1, "left")  # warm-up
for size, side in ((1, "left"), (8, "left"), (8, "right")):
    seconds, width = timed(size, side)
    print(f"batch={size} padding={side} seconds={seconds:.2f} output_width={width}")

results: dict[float, float] = {}


def worker(temperature: float) -> None:
    results[temperature] = timed(8, "left", temperature)[0]


start = time.perf_counter()
threads = [threading.Thread(target=worker, args=(t,)) for t in (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(timeout=300)
print(f"8 temperatures concurrently: all returned={all(not t.is_alive() for t in threads)} "
      f"wall={time.perf_counter() - start:.2f} s; each " + ", ".join(f"{t}:{s:.2f}" for t, s in sorted(results.items())))
