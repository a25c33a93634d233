# family: api-drift
# wave: 3
# expect: HfFolder
# note: a login helper importing HfFolder from huggingface_hub
from huggingface_hub import HfFolder  # noqa: F401
