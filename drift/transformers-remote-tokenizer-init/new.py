"""A tokenizer shipped as a model's remote code (trust_remote_code=True), ported to transformers >= 4.34:
its __init__ sets the vocabulary its methods read before it calls super().__init__()."""
import json
import os
import tempfile
from pathlib import Path

os.environ["HF_MODULES_CACHE"] = tempfile.mkdtemp()  # transformers copies remote code here: keep it out of ~/.cache

from transformers import AutoTokenizer  # noqa: E402

REMOTE_CODE = '''
import json

from transformers import PreTrainedTokenizer


class TinyRemoteTokenizer(PreTrainedTokenizer):
    vocab_files_names = {"vocab_file": "vocab.json"}

    def __init__(self, vocab_file, **kwargs):
        with open(vocab_file, encoding="utf-8") as handle:
            self.encoder = json.load(handle)
        self.decoder = {i: t for t, i in self.encoder.items()}
        super().__init__(**kwargs)

    @property
    def vocab_size(self):
        return len(self.encoder)

    def get_vocab(self):
        return dict(self.encoder)

    def _tokenize(self, text):
        return text.split()

    def _convert_token_to_id(self, token):
        return self.encoder.get(token, self.encoder["<unk>"])

    def _convert_id_to_token(self, index):
        return self.decoder.get(index, "<unk>")
'''

folder = Path(tempfile.mkdtemp()) / "tiny_remote_tokenizer"
folder.mkdir()
(folder / "tokenization_tiny.py").write_text(REMOTE_CODE)
(folder / "vocab.json").write_text(json.dumps({"<unk>": 0, "<s>": 1, "</s>": 2, "the": 3, "model": 4, "answers": 5}))
(folder / "tokenizer_config.json").write_text(json.dumps({
    "tokenizer_class": "TinyRemoteTokenizer",
    "auto_map": {"AutoTokenizer": ["tokenization_tiny.TinyRemoteTokenizer", None]},
    "unk_token": "<unk>", "bos_token": "<s>", "eos_token": "</s>",
}))
tokenizer = AutoTokenizer.from_pretrained(str(folder), trust_remote_code=True)
print("kb-drift ids", tokenizer("the model answers")["input_ids"])
