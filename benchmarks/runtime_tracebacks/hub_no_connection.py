# family: hub-access
# expect: connect
# note: no route to the Hub (endpoint that refuses connections), empty cache
import os
os.environ["HF_ENDPOINT"] = "http://127.0.0.1:9"
os.environ["HF_HUB_OFFLINE"] = "0"
os.environ["HF_HOME"] = "/tmp/hf-empty-cache2"
os.environ["HF_HUB_ETAG_TIMEOUT"] = "2"
from transformers import AutoTokenizer

tok = AutoTokenizer.from_pretrained("google/gemma-2-2b-it")
