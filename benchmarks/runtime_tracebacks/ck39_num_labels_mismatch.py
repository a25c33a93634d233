# family: checkpoint-io
# set: runtime-39
# wave: 1
# expect: size mismatch|ignore_mismatched_sizes
# note: a 2-label classifier checkpoint loaded with num_labels=5 for a new task
import tempfile
import _tiny
from transformers import LlamaForSequenceClassification

folder = tempfile.mkdtemp()
LlamaForSequenceClassification(_tiny.llama_config(num_labels=2)).save_pretrained(folder)
model = LlamaForSequenceClassification.from_pretrained(folder, num_labels=5)
