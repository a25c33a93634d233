# family: model-unsupported
# set: runtime-39
# wave: 1
# expect: does not support (?:gradient|activation) checkpointing
# note: gradient_checkpointing_enable on a custom PreTrainedModel that declares no support for it
import torch
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny-scorer"


class TinyModel(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.layer = torch.nn.Linear(4, 4)


model = TinyModel(TinyConfig())
model.gradient_checkpointing_enable()
