# family: package-install
# set: runtime-41
# expect: SentencePiece|sentencepiece|protobuf
# note: the slow LlamaTokenizer loaded from a tokenizer.model file, sentencepiece not installed
import tempfile
from transformers import LlamaTokenizer

folder = tempfile.mkdtemp()
open(folder + "/tokenizer.model", "wb").write(b"\x0a\x08\x0a\x03<unk>\x15\x00\x00\x00\x00")
tok = LlamaTokenizer.from_pretrained(folder)
