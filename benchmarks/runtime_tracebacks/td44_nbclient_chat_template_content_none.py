# family: training-data
# set: runtime-44
# mode: nbclient
# expect: None|TypeError|can only concatenate|UndefinedError|template
# note: jupyter execute: a conversational dataset whose assistant turns hold None content, rendered by the tokenizer's chat template in a map
import _tiny
from datasets import Dataset
tok = _tiny.tokenizer(chat_template=True)
tok.chat_template = "{% for m in messages %}{{ '<|' + m['role'] + '|> ' + m['content'] + ' </s> ' }}{% endfor %}"
# %%
data = Dataset.from_dict({"messages": [[{"role": "user", "content": "hello"}, {"role": "assistant", "content": None}]] * 4})
data = data.map(lambda r: {"text": tok.apply_chat_template(r["messages"], tokenize=False)})
