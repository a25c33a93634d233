# family: multi-gpu-launch
# set: runtime-43
# mode: torchrun
# expect: device_map|offload|distributed|can't train
# note: torchrun, 2 gloo ranks: Trainer on a model loaded with device_map='auto' and max_memory that offloads layers to disk
import tempfile
import _tiny
from transformers import AutoModelForCausalLM, DataCollatorForLanguageModeling, Trainer

path = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(path, device_map="auto", max_memory={"cpu": "20KB"},
                                             offload_folder=tempfile.mkdtemp())
tok = _tiny.tokenizer()
trainer = Trainer(model=model, args=_tiny.args(ddp_backend="gloo"), train_dataset=_tiny.tokenized(tok),
                  data_collator=DataCollatorForLanguageModeling(tok, mlm=False))
trainer.train()
