# family: training-data
# case: KB0043-conversational-rows-without-chat-template
# set: runtime-39
# wave: 1
# expect: chat_template is not set
# note: apply_chat_template called directly on a base model's tokenizer (no chat template)
import _tiny

tok = _tiny.tokenizer()
messages = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "world"}]
text = tok.apply_chat_template(messages, tokenize=False)
