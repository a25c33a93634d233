# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-42
# expect: gated|restricted
# note: pipeline('text-generation', model=<gated repo>) while the Hub refuses the gated repo
import _hub
_hub.serve("gated")
from transformers import pipeline

gen = pipeline("text-generation", model="meta-llama/Llama-3.2-1B-Instruct")
