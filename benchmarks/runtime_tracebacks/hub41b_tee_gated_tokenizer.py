# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: gated|restricted
# note: torchrun --tee 3, 2 ranks: AutoTokenizer.from_pretrained of a gated repo, the token not approved (403 GatedRepo)
import _hub
_hub.serve("gated")
from transformers import AutoTokenizer

tok = AutoTokenizer.from_pretrained("google/gemma-2-2b-it")
