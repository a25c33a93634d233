"""Probe for the batched-generate hang report: NOT a reproduction (the hang was not reproduced).

A tiny random-weight Llama loaded in 4-bit NF4 with bitsandbytes, then batched sampling
generate() at several batch sizes and temperatures, sequentially and from three threads at once
(the report blamed "several temperatures at the same time"). Each call is bounded by a timeout;
a call that does not return in time is reported as a hang. Prints one line per call.
Needs a CUDA GPU and bitsandbytes; nothing is downloaded.
"""

import tempfile
import threading
import time

import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig, LlamaConfig, LlamaForCausalLM

CALL_TIMEOUT_S = 60
torch.manual_seed(0)
path = tempfile.mkdtemp()
LlamaForCausalLM(LlamaConfig(
    vocab_size=1024, hidden_size=256, intermediate_size=512, num_hidden_layers=4, num_attention_heads=4,
    num_key_value_heads=4, max_position_embeddings=1024, pad_token_id=0, bos_token_id=1, eos_token_id=2,
)).save_pretrained(path)
model = AutoModelForCausalLM.from_pretrained(path, device_map={"": 0}, quantization_config=BitsAndBytesConfig(
    load_in_4bit=True, bnb_4bit_compute_dtype=torch.float16, bnb_4bit_quant_type="nf4"))
print("4-bit linear layers:", sum("4bit" in type(m).__name__ for m in model.modules()))


def batch(size: int) -> dict[str, torch.Tensor]:
    lengths = [12 + 5 * i for i in range(size)]  # prompts of different lengths, left-padded
    width = max(lengths)
    ids = torch.zeros(size, width, dtype=torch.long)
    mask = torch.zeros(size, width, dtype=torch.long)
    for row, n in enumerate(lengths):
        ids[row, width - n:] = torch.randint(3, 1024, (n,))
        mask[row, width - n:] = 1
    return {"input_ids": ids.cuda(), "attention_mask": mask.cuda()}


def generate(size: int, temperature: float, out: dict) -> None:
    t0 = time.monotonic()
    result = model.generate(**batch(size), do_sample=True, temperature=temperature, max_new_tokens=128,
                            min_new_tokens=128, pad_token_id=0)
    torch.cuda.synchronize()
    out[(size, temperature)] = (tuple(result.shape), time.monotonic() - t0)


def bounded(threads: list[threading.Thread], label: str, out: dict) -> None:
    for t in threads:
        t.start()
    deadline = time.monotonic() + CALL_TIMEOUT_S
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    hung = [t.name for t in threads if t.is_alive()]
    print(f"{label}: {'HANG ' + ', '.join(hung) if hung else 'returned'} {sorted(out.items())}", flush=True)


for size in (1, 3, 8):
    for temperature in (0.7, 1.3):
        out: dict = {}
        bounded([threading.Thread(target=generate, args=(size, temperature, out), daemon=True)], f"sequential batch={size} T={temperature}", out)
out = {}
bounded([threading.Thread(target=generate, args=(3, t, out), daemon=True, name=f"T={t}") for t in (0.7, 1.0, 1.3)],
        "3 threads at once, batch=3", out)
