# family: training-data
# set: runtime-44
# mode: accelerate
# expect: DatasetGenerationError|generat|keys|column|Error
# note: accelerate launch, 2 processes: Dataset.from_generator over a JSONL reader whose records change keys midway
import torch
from accelerate import Accelerator
from datasets import Dataset

accelerator = Accelerator(cpu=True)


def records():
    for i in range(6):
        if i < 3:
            yield {"instruction": "say hi", "output": "hi"}
        else:
            yield {"prompt": "say hi", "response": "hi", "score": 1.0}


with accelerator.main_process_first():
    ds = Dataset.from_generator(records)
