# family: api-drift
# expect: cached_download
# note: a library pinned to an old huggingface_hub API
from huggingface_hub import cached_download, hf_hub_url  # noqa: F401
