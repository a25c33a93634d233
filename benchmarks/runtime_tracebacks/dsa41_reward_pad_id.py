# family: device-side-assert
# set: runtime-41
# expect: index out of range|out of bounds
# note: RewardTrainer; a tokenizer with added special tokens whose ids are past the reward model's embedding (no resize_token_embeddings)
import _tiny
from datasets import Dataset
from transformers import LlamaForSequenceClassification
from trl import RewardConfig, RewardTrainer

tok = _tiny.tokenizer()
tok.add_tokens(["<|im_start|>", "<|im_end|>"] + [f"<extra_{i}>" for i in range(30)], special_tokens=True)
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=1))
ds = Dataset.from_dict({"chosen": ["<|im_start|> the cat <extra_20> <|im_end|>"] * 4, "rejected": ["<|im_start|> dog <extra_25> <|im_end|>"] * 4})
cfg = RewardConfig(output_dir="/tmp/rw41-vocab", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
RewardTrainer(model=model, args=cfg, train_dataset=ds, processing_class=tok).train()
