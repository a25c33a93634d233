# family: training-data
# case: KB0022-tokenizer-without-pad-token
# set: runtime-39
# wave: 1
# expect: padding token
# note: a data-prep job that logs the error on one line (logging.error with the message) and goes on
import logging
import _tiny

logging.basicConfig(level=logging.INFO, format="[%(asctime)s] %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("prep")
tok = _tiny.tokenizer(pad=False)
try:
    enc = tok(["the cat sat", "hello"], padding="longest", return_tensors="pt")
except ValueError as e:
    log.error("tokenization failed: %s", e)
