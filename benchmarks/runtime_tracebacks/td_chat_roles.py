# family: training-data
# wave: 2
# expect: alternate|TemplateError
# note: apply_chat_template over rows whose roles do not alternate (a template that raises, as Llama-2/Mistral's do)
import _tiny

tok = _tiny.tokenizer()
tok.chat_template = ("{% for m in messages %}{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
                     "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}"
                     "{% endif %}[{{ m['role'] }}] {{ m['content'] }} {% endfor %}")
rows = [[{"role": "system", "content": "hello"}, {"role": "user", "content": "question"}]]
for r in rows:
    print(tok.apply_chat_template(r, tokenize=False))
