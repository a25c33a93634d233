# family: api-drift
# mode: ipython
# expect: evaluation_strategy
# note: notebook; TrainingArguments with evaluation_strategy in the third cell
import _tiny
from transformers import TrainingArguments
# %%
model = _tiny.llama()
# %%
training_args = TrainingArguments(
    output_dir="./results",
    evaluation_strategy="epoch",
    learning_rate=2e-5,
    per_device_train_batch_size=8,
)
