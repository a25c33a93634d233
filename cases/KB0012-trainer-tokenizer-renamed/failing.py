"""SFT with trl, written against the older API: `torch_dtype=` and `SFTTrainer(tokenizer=...)`.

The model is a tiny Llama built from a config with random weights and the tokenizer a local
WordLevel vocabulary: nothing is downloaded.
"""

import tempfile

import torch
from datasets import Dataset
from tokenizers import Tokenizer, models, pre_tokenizers
from transformers import AutoModelForCausalLM, LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast
from trl import SFTConfig, SFTTrainer

WORDS = "the a model learns to answer questions about gpus memory and training fast".split()
VOCAB = {word: i for i, word in enumerate(["<unk>", "<pad>", "<eos>", *WORDS])}
tokenizer_core = Tokenizer(models.WordLevel(VOCAB, unk_token="<unk>"))
tokenizer_core.pre_tokenizer = pre_tokenizers.Whitespace()
tokenizer = PreTrainedTokenizerFast(tokenizer_object=tokenizer_core, unk_token="<unk>", pad_token="<pad>", eos_token="<eos>")

workdir = tempfile.mkdtemp()
config = LlamaConfig(
    vocab_size=len(VOCAB), hidden_size=32, intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
    num_key_value_heads=2, max_position_embeddings=64, pad_token_id=1, bos_token_id=2, eos_token_id=2,
)
LlamaForCausalLM(config).save_pretrained(workdir)

model = AutoModelForCausalLM.from_pretrained(workdir, torch_dtype=torch.float32)
dataset = Dataset.from_dict({"text": ["the model learns to answer questions about gpus"] * 8})
args = SFTConfig(output_dir=f"{workdir}/out", max_steps=2, per_device_train_batch_size=2, bf16=False, report_to="none", save_strategy="no")

trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, tokenizer=tokenizer)
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
