# family: training-data
# case: KB0043-conversational-rows-without-chat-template
# set: runtime-42
# expect: chat template|chat_template
# note: a text-generation pipeline given chat messages with a tokenizer that has no chat template
import _tiny
from transformers import pipeline

gen = pipeline("text-generation", model=_tiny.llama(), tokenizer=_tiny.tokenizer())
print(gen([{"role": "user", "content": "hello"}], max_new_tokens=2))
