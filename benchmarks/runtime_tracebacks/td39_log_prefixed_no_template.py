# family: training-data
# case: KB0043-conversational-rows-without-chat-template
# set: runtime-39
# wave: 1
# mode: logprefix
# expect: chat_template is not set
# note: a containerised job's log as the collector keeps it (timestamp and stream before every line); apply_chat_template on a base tokenizer
import _tiny
from datasets import Dataset

tok = _tiny.tokenizer()
rows = Dataset.from_dict({"messages": [[{"role": "user", "content": "hello"}]] * 4})
rows = rows.map(lambda r: {"text": tok.apply_chat_template(r["messages"], tokenize=False)})
