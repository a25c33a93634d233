# family: api-drift
# set: runtime-44
# mode: ipython
# expect: unexpected keyword argument|TypeError|write_permission|has no attribute
# note: IPython: a Colab notebook's first cell logs in with write_permission= (removed from huggingface_hub's login)
from huggingface_hub import login
# %%
login(token="hf_" + "x" * 34, write_permission=True)
