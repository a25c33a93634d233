"""Trainer.evaluate with compute_metrics on a causal LM with a 151,936-token vocabulary, one 15 GB T4 (emulated).

The fix: reduce the logits to what the metric needs on the GPU, batch by batch
(preprocess_logits_for_metrics returns the argmax: batch x sequence token ids instead of
batch x sequence x vocabulary floats), and hand the accumulated results to the CPU every step
(eval_accumulation_steps=1).
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


def preprocess_logits_for_metrics(logits, labels):  # the fix: keep token ids, not vocabulary-sized logits
    return logits.argmax(-1)


def compute_metrics(prediction):  # next-token accuracy from the predicted ids
    predicted = prediction.predictions
    return {"token_accuracy": float((predicted[:, :-1] == prediction.label_ids[:, 1:]).mean())}


args = TrainingArguments(output_dir=tempfile.mkdtemp(prefix="kb0039-"), per_device_eval_batch_size=8,
                         eval_accumulation_steps=1, report_to="none", disable_tqdm=True)
trainer = Trainer(model=model, args=args, eval_dataset=eval_rows, compute_metrics=compute_metrics,
                  preprocess_logits_for_metrics=preprocess_logits_for_metrics)
metrics = trainer.evaluate()
print(f"kb-measure token_accuracy={metrics['eval_token_accuracy']:.4f}")
print(f"kb-measure peak_gib={torch.cuda.max_memory_allocated() / 2**30:.2f}")
