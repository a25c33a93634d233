# family: checkpoint-io
# set: runtime-42
# expect: size mismatch
# note: a JSON log formatter (one JSON object a line, the traceback in an escaped field): a vocab-resized checkpoint loaded into the original size
import json
import logging
import sys
import tempfile
import torch
import _tiny


class JsonFormatter(logging.Formatter):
    def format(self, record):
        out = {"time": self.formatTime(record), "level": record.levelname, "logger": record.name,
               "message": record.getMessage()}
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out)


handler = logging.StreamHandler(sys.stdout)
handler.setFormatter(JsonFormatter())
log = logging.getLogger("finetune")
log.addHandler(handler)
log.setLevel(logging.INFO)
path = tempfile.mktemp(suffix=".pt")
big = _tiny.llama()
big.resize_token_embeddings(48)
torch.save(big.state_dict(), path)
log.info("restoring from %s", path)
try:
    _tiny.llama().load_state_dict(torch.load(path))
except Exception:
    log.exception("restore failed")
    sys.exit(1)
