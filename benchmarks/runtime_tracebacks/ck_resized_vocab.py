# family: checkpoint-io
# wave: 2
# expect: size mismatch|mismatch
# note: a fine-tuned checkpoint saved after resize_token_embeddings, loaded into the base-sized model class
import tempfile
import _tiny
from transformers import LlamaForCausalLM

folder = tempfile.mkdtemp()
m = _tiny.llama()
m.resize_token_embeddings(40)
m.save_pretrained(folder)
model = LlamaForCausalLM.from_pretrained(folder, config=_tiny.llama_config())
