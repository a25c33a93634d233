# family: training-data
# set: runtime-40
# expect: str|text input
# note: a preprocessing script that prints each failing row's error; the tokenizer called on numeric ids read from a CSV column
import _tiny

tok = _tiny.tokenizer()
for row in [{"text": "hello world"}, {"text": 12345}]:
    try:
        tok(row["text"])
    except Exception as e:
        print(f"row skipped: {e!r}")
