# family: api-drift
# wave: 3
# expect: DataCollatorForCompletionOnlyLM
# note: an SFT recipe importing DataCollatorForCompletionOnlyLM (removed from trl)
from trl import SFTTrainer, DataCollatorForCompletionOnlyLM  # noqa: F401
