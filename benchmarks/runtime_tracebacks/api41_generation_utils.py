# family: api-drift
# set: runtime-41
# mode: nbclient
# expect: generation_utils|No module named
# note: a notebook importing the pre-4.25 module path transformers.generation_utils
import _tiny
model = _tiny.llama()
# %%
from transformers.generation_utils import GenerationMixin  # noqa: F401
