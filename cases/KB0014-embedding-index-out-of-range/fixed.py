"""Summarisation fine-tuning prep: new special tokens are added to the tokenizer, and the model is resized to match.

A tiny BART (the incident's KoBART is a BART) from a config with random weights, and a local
WordLevel tokenizer: nothing is downloaded. Runs on CUDA when a GPU is visible, else on CPU.
"""

import torch
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import BartConfig, BartForConditionalGeneration, PreTrainedTokenizerFast

device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)

WORDS = "the report says memory use fell after the model was changed summary text".split()
VOCAB = {word: i for i, word in enumerate(["<s>", "<pad>", "</s>", "<unk>", *WORDS])}
core = Tokenizer(models.WordLevel(VOCAB, unk_token="<unk>"))
core.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(
    tokenizer_object=core, bos_token="<s>", pad_token="<pad>", eos_token="</s>", unk_token="<unk>"
)
model = BartForConditionalGeneration(BartConfig(
    vocab_size=len(tokenizer), d_model=32, encoder_layers=1, decoder_layers=1, encoder_attention_heads=4,
    decoder_attention_heads=4, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=64,
    pad_token_id=1, bos_token_id=0, eos_token_id=2, decoder_start_token_id=2,
)).to(device)

# Markers for the fine-tuning data format: the tokenizer grows by two ids the model has no rows for.
tokenizer.add_special_tokens({"additional_special_tokens": ["<doc>", "<summary>"]})
model.resize_token_embeddings(len(tokenizer))  # one row per token id the tokenizer can produce
print(f"tokenizer: {len(tokenizer)} tokens, embedding matrix: {model.get_input_embeddings().num_embeddings} rows")

batch = tokenizer(["<doc> the report says memory use fell"], text_target=["<summary> memory use fell"], return_tensors="pt").to(device)
loss = model(**batch).loss
loss.backward()
print(f"kb-measure loss_is_finite={int(torch.isfinite(loss).item())}")
