# family: adapter-config
# set: runtime-44
# mode: pyc
# expect: tokenizer_name_or_path|prompt_tuning_init|TEXT
# note: python -c: prompt tuning initialised from text without naming the tokenizer to encode it
import _tiny
from peft import PromptTuningConfig, PromptTuningInit, get_peft_model
config = PromptTuningConfig(task_type="CAUSAL_LM", prompt_tuning_init=PromptTuningInit.TEXT, num_virtual_tokens=8,
                            prompt_tuning_init_text="Classify if the tweet is a complaint or not:")
model = get_peft_model(_tiny.llama(), config)
