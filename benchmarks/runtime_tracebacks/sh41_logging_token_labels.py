# family: shape-mismatch
# set: runtime-41
# expect: batch_size|Expected input batch_size
# note: logging wrapper; a sequence classifier trained with per-token labels (labels = input_ids copied from an LM recipe)
import logging
import sys
import _tiny
from transformers import DataCollatorWithPadding, LlamaForSequenceClassification, Trainer

logging.basicConfig(format="%(asctime)s %(levelname)s %(name)s %(message)s", level=logging.INFO)
log = logging.getLogger("cls")
tok = _tiny.tokenizer()
ds = _tiny.text_dataset().map(lambda r: {**tok(r["text"], padding="max_length", max_length=8), "labels": tok(r["text"], padding="max_length", max_length=8)["input_ids"]}, remove_columns=["text"])
model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=32))
model.config.problem_type = "single_label_classification"
try:
    Trainer(model=model, args=_tiny.args(), train_dataset=ds, data_collator=DataCollatorWithPadding(tok)).train()
except Exception:
    log.exception("fine-tuning failed")
    sys.exit(1)
