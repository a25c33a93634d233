# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-42
# expect: gated|restricted
# note: a JSON log formatter: AutoConfig.from_pretrained of a gated repo, logged with its traceback in an escaped field
import _hub
_hub.serve("gated401")
import json
import logging
import sys
from transformers import AutoConfig


class JsonFormatter(logging.Formatter):
    def format(self, record):
        out = {"ts": self.formatTime(record), "severity": record.levelname, "msg": record.getMessage()}
        if record.exc_info:
            out["exception"] = self.formatException(record.exc_info)
        return json.dumps(out)


h = logging.StreamHandler(sys.stderr)
h.setFormatter(JsonFormatter())
log = logging.getLogger("job")
log.addHandler(h)
log.setLevel(logging.INFO)
try:
    cfg = AutoConfig.from_pretrained("google/gemma-2-2b-it")
except Exception:
    log.exception("could not fetch the model config")
    sys.exit(2)
