# family: training-data
# set: runtime-39
# wave: 1
# expect: UndefinedError|has no attribute
# note: a chat template written for rows keyed 'text' rendered over rows keyed 'content'
import _tiny

tok = _tiny.tokenizer()
tok.chat_template = "{% for m in messages %}{{ m['role'] }}: {{ m.text.strip() }}\n{% endfor %}"
rows = [{"role": "user", "content": "hello"}]
ids = tok.apply_chat_template(rows, tokenize=True)
