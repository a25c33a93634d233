# family: ddp-reducer
# case: KB0027-ddp-reentrant-checkpoint-ready-twice
# set: runtime-42
# mode: torchrun
# expect: marked as ready twice|ready only once|reduction
# note: torchrun, 2 gloo ranks: Trainer with gradient_checkpointing (reentrant) on a LoRA model and ddp_find_unused_parameters=True
import _tiny
from peft import LoraConfig, get_peft_model
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
model = get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
args = _tiny.args(gradient_checkpointing=True, gradient_checkpointing_kwargs={"use_reentrant": True},
                  ddp_find_unused_parameters=True, ddp_backend="gloo")
trainer = Trainer(model=model, args=args, train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
