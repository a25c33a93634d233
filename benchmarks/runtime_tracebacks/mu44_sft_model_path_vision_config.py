# family: model-unsupported
# set: runtime-44
# expect: Unrecognized configuration class|AutoModelForCausalLM|Model type should be one of|generation_config
# note: SFTTrainer given a model path as a string; the folder holds a vision encoder (CLIPVisionConfig), which is not a model that generates text (it fails when the trainer reads its generation_config)
import tempfile
import _tiny
from transformers import CLIPVisionConfig, CLIPVisionModel
from trl import SFTConfig, SFTTrainer

path = tempfile.mkdtemp(prefix="vit-")
CLIPVisionModel(CLIPVisionConfig(hidden_size=16, intermediate_size=32, num_hidden_layers=1, num_attention_heads=2,
                                 image_size=32, patch_size=16)).save_pretrained(path)
cfg = SFTConfig(output_dir="/tmp/sft-out", max_steps=1, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=path, args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer())
