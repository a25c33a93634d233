# family: device-side-assert
# case: KB0014-embedding-index-out-of-range
# set: runtime-41
# expect: index out of range
# note: logger.exception wrapper around Trainer.train(); chat tokens added to the tokenizer, the model's embeddings not resized
import logging
import sys
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

logging.basicConfig(format="%(asctime)s %(levelname)s [%(name)s] %(message)s", level=logging.INFO)
logger = logging.getLogger("finetune")
tok = _tiny.tokenizer()
tok.add_special_tokens({"additional_special_tokens": [f"<tool_{i}>" for i in range(40)]})
ds = _tiny.text_dataset().map(lambda r: tok(r["text"] + " <tool_33>"), remove_columns=["text"])
trainer = Trainer(model=_tiny.llama(), args=_tiny.args(), train_dataset=ds, data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
try:
    trainer.train()
except Exception:
    logger.exception("training failed")
    sys.exit(1)
