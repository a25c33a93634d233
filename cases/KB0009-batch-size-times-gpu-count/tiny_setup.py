"""Shared pieces of the KB0009 programs: a tiny causal LM, a local tokenizer, an in-memory dataset,
and the measurements (rows the model's forward sees per optimizer step, GPUs and memory used).

Importing this module imports torch and transformers but touches no CUDA device itself; the
programs decide when CUDA_VISIBLE_DEVICES is set relative to this import. Works on transformers
4.51 / trl 0.15 (the incident's stack) and on transformers 5.x / trl 1.16.
"""

from __future__ import annotations

import tempfile
import threading

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

PER_DEVICE_BATCH = 2  # what the incident asked for
STEPS = 2
# Unique words: a repeated word would leave a token id >= vocab_size (an out-of-range embedding index).
WORDS = list(dict.fromkeys("the model answers in a short friendly sentence about cat dog sun rain tea book".split()))


def tokenizer() -> PreTrainedTokenizerFast:
    vocab = {w: i for i, w in enumerate(["<pad>", "<unk>", "<s>", "</s>", *WORDS])}
    tok = Tokenizer(models.WordLevel(vocab=vocab, unk_token="<unk>"))
    tok.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    return PreTrainedTokenizerFast(
        tokenizer_object=tok, pad_token="<pad>", unk_token="<unk>", bos_token="<s>", eos_token="</s>"
    )


def model(tok: PreTrainedTokenizerFast) -> LlamaForCausalLM:
    torch.manual_seed(0)
    config = LlamaConfig(
        vocab_size=len(tok), hidden_size=256, intermediate_size=688, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=64,
        pad_token_id=tok.pad_token_id, bos_token_id=tok.bos_token_id, eos_token_id=tok.eos_token_id,
    )
    return LlamaForCausalLM(config)


def texts(n: int = 16) -> list[str]:
    """n short sentences over the vocabulary (every token id occurs)."""
    return [" ".join(WORDS[(i + j) % len(WORDS)] for j in range(6 + i % 5)) for i in range(n)]


def args_kwargs() -> dict:
    """Training arguments shared by TrainingArguments and SFTConfig."""
    return dict(
        output_dir=tempfile.mkdtemp(prefix="kb0009-"), per_device_train_batch_size=PER_DEVICE_BATCH,
        max_steps=STEPS, learning_rate=1e-4, logging_steps=1, save_strategy="no", report_to="none",
        disable_tqdm=True, dataloader_num_workers=0, bf16=False,  # trl 1.x defaults to bf16; keep both stacks alike
    )


class RowCounter:
    """Counts the rows of input_ids every forward call of the model receives.

    nn.DataParallel's replicas share the original module's forward pre-hooks, so under
    DataParallel each replica's call is counted (from its own thread).
    """

    def __init__(self, module: torch.nn.Module) -> None:
        self.rows: list[int] = []
        self._lock = threading.Lock()
        module.register_forward_pre_hook(self._hook, with_kwargs=True)

    def _hook(self, module: torch.nn.Module, args: tuple, kwargs: dict) -> None:
        ids = kwargs.get("input_ids", args[0] if args else None)
        if ids is not None:
            with self._lock:
                self.rows.append(int(ids.shape[0]))


def report(trainer, counter: RowCounter, param_module: torch.nn.Module) -> None:
    """Print what the run did as kb-measure lines."""
    steps = max(1, trainer.state.global_step)
    visible = torch.cuda.device_count() if torch.cuda.is_available() else 0
    model_mib = sum(p.numel() * p.element_size() for p in param_module.parameters()) / 2**20
    other_mib = sum(torch.cuda.max_memory_allocated(i) for i in range(1, visible)) / 2**20
    first_mib = torch.cuda.max_memory_allocated(0) / 2**20 if visible else 0.0
    print(f"visible GPUs {visible}; args.n_gpu {trainer.args.n_gpu}; train_batch_size {trainer.args.train_batch_size}")
    print(f"forward calls {len(counter.rows)} with rows {counter.rows} over {steps} optimizer steps")
    print(f"peak allocated: first GPU {first_mib:.1f} MiB, other GPUs {other_mib:.1f} MiB (model {model_mib:.1f} MiB)")
    print(f"kb-measure visible_gpus={visible}")
    print(f"kb-measure n_gpu={trainer.args.n_gpu}")
    print(f"kb-measure per_device_batch={PER_DEVICE_BATCH}")
    print(f"kb-measure train_batch_size={trainer.args.train_batch_size}")
    print(f"kb-measure rows_per_step={sum(counter.rows) / steps:g}")
    print(f"kb-measure forward_calls_per_step={len(counter.rows) / steps:g}")
    print(f"kb-measure other_gpus_peak_mib={other_mib:.2f}")
    print(f"kb-measure other_gpus_model_copies={other_mib / model_mib:.2f}")
