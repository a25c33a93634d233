# family: model-unsupported
# set: runtime-41
# expect: Unrecognized configuration class|Unrecognized
# note: rich traceback; AutoModelForTokenClassification from a Whisper config (no token-classification head for it)
from rich.traceback import install

install(width=110)
from transformers import AutoModelForTokenClassification, WhisperConfig

model = AutoModelForTokenClassification.from_config(WhisperConfig(d_model=16, encoder_layers=1, decoder_layers=1,
                                                                  encoder_attention_heads=2, decoder_attention_heads=2))
