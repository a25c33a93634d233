# family: api-drift
# expect: prepare_model_for_int8_training
# note: an old QLoRA script importing prepare_model_for_int8_training
from peft import LoraConfig, get_peft_model, prepare_model_for_int8_training  # noqa: F401
