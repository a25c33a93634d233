# family: api-drift
# set: runtime-41
# expect: top_k_top_p_filtering
# note: an old sampling script imports transformers.top_k_top_p_filtering (removed)
import logging

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
logging.getLogger("sample").info("loading sampler")
from transformers import top_k_top_p_filtering  # noqa: E402,F401
