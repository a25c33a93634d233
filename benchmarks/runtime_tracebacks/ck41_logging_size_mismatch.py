# family: checkpoint-io
# set: runtime-41
# expect: size mismatch
# note: a logging wrapper (logger.exception, then exit 1): a sequence-classification head saved with 3 labels loaded into one built for 5
import logging
import sys
import tempfile
import torch
import _tiny
from transformers import LlamaForSequenceClassification

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO)
log = logging.getLogger("train_cls")
path = tempfile.mktemp(suffix=".pt")
torch.save(LlamaForSequenceClassification(_tiny.llama_config(num_labels=3)).state_dict(), path)
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=5))
try:
    model.load_state_dict(torch.load(path))
except Exception:
    log.exception("could not restore the classifier from %s", path)
    sys.exit(1)
