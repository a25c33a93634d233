# family: api-drift
# set: runtime-40
# mode: ipython
# expect: cannot import name
# note: notebook; an old data-exploration cell importing list_datasets from datasets (moved to huggingface_hub)
import datasets
print(datasets.__version__)
# %%
from datasets import list_datasets
names = list_datasets()
