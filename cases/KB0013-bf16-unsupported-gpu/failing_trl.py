"""trl SFT with the config left at its defaults, run where there is no bf16-capable GPU (here: no GPU).

trl's SFTConfig turns bf16 on whenever fp16 is not set: bf16 is requested without being written.
Tiny Llama from a config with random weights, a local WordLevel tokenizer: nothing is downloaded.
"""

import tempfile

import torch
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import SFTConfig, SFTTrainer

WORDS = "the a model learns to answer questions about gpus memory and training fast".split()
VOCAB = {word: i for i, word in enumerate(["<unk>", "<pad>", "<eos>", *WORDS])}
core = Tokenizer(models.WordLevel(VOCAB, unk_token="<unk>"))
core.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")

torch.manual_seed(0)
model = LlamaForCausalLM(LlamaConfig(
    vocab_size=len(VOCAB), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, max_position_embeddings=64, pad_token_id=1, bos_token_id=2, eos_token_id=2,
))
dataset = Dataset.from_dict({"text": ["the model learns to answer questions about gpus"] * 8})

args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=4, report_to="none", save_strategy="no")
result = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer).train()
print(f"kb-measure train_steps={result.global_step}")
