"""SFT on conversational rows ("messages") with a base model's tokenizer, given a chat template first.

trl's SFTTrainer formats each conversation with tokenizer.apply_chat_template while it prepares the
dataset; a base (not instruct) checkpoint's tokenizer ships without one. Tiny Llama with random weights
and a local WordLevel tokenizer: nothing is downloaded.
"""

import tempfile

from datasets import Dataset
from trl import SFTConfig, SFTTrainer

from kb.fixtures import tiny

tok = tiny.tokenizer()  # like a base model's tokenizer: no chat_template
# The fix: give the tokenizer the chat template you train (and later prompt) with.
tok.chat_template = (
    "{% for message in messages %}<s> {{ message['role'] }} {{ message['content'] }} </s> {% endfor %}"
    "{% if add_generation_prompt %}<s> assistant {% endif %}"
)
model = tiny.causal_lm(tok)

rows = [[{"role": "user", "content": text}, {"role": "assistant", "content": answer}]
        for text, answer in zip(tiny.texts(8), reversed(tiny.texts(8)))]
dataset = Dataset.from_dict({"messages": rows})

args = SFTConfig(output_dir=tempfile.mkdtemp(), per_device_train_batch_size=4, max_steps=2, max_length=64,
                 bf16=False, gradient_checkpointing=False, report_to="none", save_strategy="no", use_cpu=True)
trainer = SFTTrainer(model=model, args=args, train_dataset=dataset, processing_class=tok)
result = trainer.train()
print(f"kb-measure train_steps={result.global_step}")
