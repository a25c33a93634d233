# family: training-data
# set: runtime-40
# mode: torchrun
# expect: KeyError|instruction
# note: torchrun, 2 ranks; an Alpaca formatting map over a dataset with question/answer columns (no 'instruction')
import torch.distributed as dist
from datasets import Dataset

dist.init_process_group("gloo")
ds = Dataset.from_dict({"question": ["q1", "q2"], "answer": ["a1", "a2"]})
ds = ds.map(lambda r: {"text": f"### Instruction:\n{r['instruction']}\n### Response:\n{r['output']}"})
