"""The same trl SFT, with the precision chosen from the hardware instead of left to SFTConfig's default.

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



def precision() -> dict[str, bool]:
    """bf16 only where the GPU runs it natively (compute capability 8.0+), fp16 on older GPUs, fp32 on CPU."""
    if not torch.cuda.is_available():
        return {"bf16": False, "fp16": False}
    # including_emulation=False: on a T4 (7.5) current torch reports bf16 as supported, but emulated (slow).
    native_bf16 = torch.cuda.is_bf16_supported(including_emulation=False)
    return {"bf16": native_bf16, "fp16": not native_bf16}


chosen = precision()
print(f"kb-measure bf16={int(chosen['bf16'])}")
args = SFTConfig(output_dir=tempfile.mkdtemp(), max_steps=2, per_device_train_batch_size=4, report_to="none", save_strategy="no", **chosen)
result = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tokenizer).train()
print(f"kb-measure train_steps={result.global_step}")
