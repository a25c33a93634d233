# family: dtype-mismatch
# case: KB0019-loss-target-long-vs-float
# set: runtime-42
# expect: result type Float can't be cast|Long|dtype
# note: a multi-label classifier (problem_type multi_label_classification) given integer 0/1 labels
import torch
import _tiny
from transformers import LlamaForSequenceClassification

model = LlamaForSequenceClassification(_tiny.llama_config(num_labels=3, problem_type="multi_label_classification"))
out = model(input_ids=torch.randint(4, 20, (2, 6)), labels=torch.tensor([[1, 0, 1], [0, 1, 0]]))
