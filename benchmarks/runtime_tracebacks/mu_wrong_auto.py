# family: model-unsupported
# expect: Unrecognized configuration class
# note: AutoModelForCausalLM on an encoder-decoder / vision config
from transformers import AutoModelForCausalLM, ViTConfig

model = AutoModelForCausalLM.from_config(ViTConfig(hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                                                   intermediate_size=32))
