"""Trainer.evaluate with compute_metrics on a causal LM with a 151,936-token vocabulary, one 15 GB T4 (emulated).

With compute_metrics set, the Trainer keeps every evaluation batch's logits (batch x sequence x vocabulary)
on the GPU and concatenates them until the loop ends. The model is small (2 layers, Qwen2.5's vocabulary,
random weights built from its config); the logits of 48 sequences of 512 tokens are 14.9 GB in fp32.
"""

import tempfile

import torch
from transformers import Qwen2Config, Qwen2ForCausalLM, Trainer, TrainingArguments

VOCAB, SEQUENCES, SEQ = 151936, 48, 512
config = Qwen2Config(vocab_size=VOCAB, hidden_size=256, intermediate_size=688, num_hidden_layers=2,
                     num_attention_heads=4, num_key_value_heads=2, tie_word_embeddings=True)
torch.manual_seed(0)
model = Qwen2ForCausalLM(config)
ids = torch.randint(0, VOCAB, (SEQUENCES, SEQ), generator=torch.Generator().manual_seed(0))
eval_rows = [{"input_ids": row, "labels": row} for row in ids]


def compute_metrics(prediction):  # next-token accuracy from the full logits
    predicted = prediction.predictions.argmax(-1)
    return {"token_accuracy": float((predicted[:, :-1] == prediction.label_ids[:, 1:]).mean())}


args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="kb0039-"), per_device_eval_batch_size=8,
                         report_to="none", disable_tqdm=True)
trainer = Trainer(model=model, args=args, eval_dataset=eval_rows, compute_metrics=compute_metrics)
metrics = trainer.evaluate()
print(f"kb-measure token_accuracy={metrics['eval_token_accuracy']:.4f}")
print(f"kb-measure peak_gib={torch.cuda.max_memory_allocated() / 2**30:.2f}")
