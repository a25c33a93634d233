# family: model-unsupported
# set: runtime-42
# expect: Unrecognized configuration class
# note: AutoModelForImageClassification.from_config on a Llama config (no such head for the architecture)
import _tiny
from transformers import AutoModelForImageClassification

model = AutoModelForImageClassification.from_config(_tiny.llama_config())
