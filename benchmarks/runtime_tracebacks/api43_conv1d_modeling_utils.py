# family: api-drift
# set: runtime-43
# expect: Conv1D|cannot import
# note: a LoRA helper module of an older repo importing Conv1D from transformers.modeling_utils (moved to pytorch_utils)
import torch
from transformers.modeling_utils import Conv1D


def linear_names(model: torch.nn.Module) -> list[str]:
    return [n for n, m in model.named_modules() if isinstance(m, (torch.nn.Linear, Conv1D))]
