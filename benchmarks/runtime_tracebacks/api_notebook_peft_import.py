# family: api-drift
# mode: ipython
# wave: 2
# expect: prepare_model_for_int8_training
# note: notebook; an old QLoRA notebook's import cell
import os  # noqa: F401
# %%
from peft import LoraConfig, prepare_model_for_int8_training, get_peft_model  # noqa: F401
