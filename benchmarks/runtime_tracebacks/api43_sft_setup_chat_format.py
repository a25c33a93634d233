# family: api-drift
# set: runtime-43
# expect: setup_chat_format|cannot import
# note: an SFT script from 2024 importing trl.setup_chat_format to add ChatML tokens before SFTTrainer
import _tiny
from trl import SFTConfig, SFTTrainer, setup_chat_format

model, tok = setup_chat_format(_tiny.llama(), _tiny.tokenizer())
trainer = SFTTrainer(model=model, processing_class=tok, train_dataset=_tiny.text_dataset(),
                     args=SFTConfig(output_dir="/tmp/sft43", max_steps=1, report_to=[], use_cpu=True))
