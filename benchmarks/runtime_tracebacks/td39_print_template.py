# family: training-data
# case: KB0043-conversational-rows-without-chat-template
# set: runtime-39
# wave: 2
# expect: chat_template is not set
# note: a preprocessing script without IPython that prints only the exception's message and skips the row
import _tiny

tok = _tiny.tokenizer()
rows = [[{"role": "user", "content": "hello"}, {"role": "assistant", "content": "world"}]]
for row in rows:
    try:
        text = tok.apply_chat_template(row, tokenize=False)
    except ValueError as e:
        print("skipping row:", e)
