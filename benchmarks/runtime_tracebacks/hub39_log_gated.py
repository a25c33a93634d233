# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-39
# wave: 1
# expect: gated|restricted
# note: a training service that logs the failure with logging.exception (timestamped format) and exits 1
import logging
import sys
import _hub
_hub.serve("gated")
from transformers import AutoConfig

logging.basicConfig(format="%(asctime)s - %(name)s - %(levelname)s - %(message)s", level=logging.INFO)
log = logging.getLogger("finetune")
log.info("loading base model google/gemma-2-2b")
try:
    cfg = AutoConfig.from_pretrained("google/gemma-2-2b")
except Exception:
    log.exception("could not load the base model")
    sys.exit(1)
