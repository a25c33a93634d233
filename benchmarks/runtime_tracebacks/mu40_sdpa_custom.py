# family: model-unsupported
# set: runtime-40
# expect: does not support|scaled_dot_product_attention|sdpa
# note: a custom PreTrainedModel (remote-code style) loaded with attn_implementation="sdpa"; the class declares no SDPA support
import torch
from transformers import PretrainedConfig, PreTrainedModel


class TinyConfig(PretrainedConfig):
    model_type = "tiny40"


class TinyModel(PreTrainedModel):
    config_class = TinyConfig

    def __init__(self, config):
        super().__init__(config)
        self.lin = torch.nn.Linear(4, 4)


model = TinyModel(TinyConfig(attn_implementation="sdpa"))
model.set_attn_implementation("sdpa")
