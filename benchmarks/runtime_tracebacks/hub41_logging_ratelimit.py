# family: hub-access
# set: runtime-41
# expect: 429|Too Many Requests|rate
# note: a logging wrapper; hf_hub_download in a loop of evaluation files while the Hub answers 429
import logging
import sys
import _hub
_hub.serve("ratelimit")
from huggingface_hub import hf_hub_download

logging.basicConfig(format="%(asctime)s | %(levelname)-8s | %(name)s | %(message)s", level=logging.INFO)
log = logging.getLogger("eval")
try:
    for name in ["test-00000-of-00002.parquet", "test-00001-of-00002.parquet"]:
        log.info("fetching %s", name)
        hf_hub_download("cais/mmlu", f"all/{name}", repo_type="dataset")
except Exception:
    log.exception("download failed")
    sys.exit(1)
