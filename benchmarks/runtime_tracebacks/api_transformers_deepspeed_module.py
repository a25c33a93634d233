# family: api-drift
# wave: 2
# expect: transformers.deepspeed
# note: an old ZeRO-3 inference script importing transformers.deepspeed (moved to transformers.integrations)
from transformers.deepspeed import HfDeepSpeedConfig  # noqa: F401
