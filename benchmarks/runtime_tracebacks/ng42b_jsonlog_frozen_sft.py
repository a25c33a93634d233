# family: no-grad-fn
# case: KB0008-frozen-model-no-grad-fn
# set: runtime-42
# wave: 2
# expect: does not require grad|grad_fn
# note: a JSON log formatter: a Trainer over a Llama with every parameter frozen (requires_grad_(False)), traceback in an escaped field
import json
import logging
import sys
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer


class Json(logging.Formatter):
    def format(self, record):
        out = {"level": record.levelname, "msg": record.getMessage()}
        if record.exc_info:
            out["traceback"] = self.formatException(record.exc_info)
        return json.dumps(out)


h = logging.StreamHandler(sys.stdout)
h.setFormatter(Json())
log = logging.getLogger("trainer-job")
log.addHandler(h)
log.setLevel(logging.INFO)
tok = _tiny.tokenizer()
model = _tiny.llama()
model.requires_grad_(False)
trainer = Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
try:
    trainer.train()
except Exception:
    log.exception("training failed")
    sys.exit(1)
