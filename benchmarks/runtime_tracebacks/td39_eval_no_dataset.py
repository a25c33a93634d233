# family: training-data
# set: runtime-39
# wave: 1
# expect: eval_dataset|evaluation
# note: TrainingArguments(eval_strategy="steps") with no eval_dataset given to the Trainer
import _tiny
from transformers import DataCollatorForLanguageModeling, Trainer

tok = _tiny.tokenizer()
Trainer(model=_tiny.llama(), args=_tiny.args(eval_strategy="steps", eval_steps=1), train_dataset=_tiny.tokenized(tok),
        data_collator=DataCollatorForLanguageModeling(tok, mlm=False)).train()
