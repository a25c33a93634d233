# family: checkpoint-io
# set: runtime-44
# wave: 2
# mode: accelerate
# expect: No such file|not found|shard
# note: accelerate launch, 2 processes: a sequence-classification model loaded from a sharded checkpoint whose first shard a sync job did not copy
import os, shutil, tempfile
import _tiny
from accelerate import Accelerator
from transformers import AutoModelForSequenceClassification, LlamaForSequenceClassification

accelerator = Accelerator(cpu=True)
path = f"/tmp/runtime44/seqcls-{accelerator.process_index}"
shutil.rmtree(path, ignore_errors=True)
LlamaForSequenceClassification(_tiny.llama_config(num_labels=2)).save_pretrained(path, max_shard_size="20KB")
os.remove(os.path.join(path, sorted(f for f in os.listdir(path) if f.startswith("model-0"))[0]))
model = AutoModelForSequenceClassification.from_pretrained(path)
