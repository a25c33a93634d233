# family: device-mismatch
# set: runtime-39
# wave: 1
# expect: meta
# note: Trainer on a model built under init_empty_weights and never loaded (weights on the meta device)
import _tiny
from accelerate import init_empty_weights
from transformers import DataCollatorForLanguageModeling, LlamaForCausalLM, Trainer

with init_empty_weights():
    model = LlamaForCausalLM(_tiny.llama_config())
tok = _tiny.tokenizer()
Trainer(model=model, args=_tiny.args(), train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
