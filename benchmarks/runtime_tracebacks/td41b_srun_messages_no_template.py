# family: training-data
# case: KB0043-conversational-rows-without-chat-template
# set: runtime-41
# wave: 2
# mode: srunlabel
# expect: chat template|chat_template
# note: srun --label; SFTTrainer on "messages" rows with a base model's tokenizer that has no chat template
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

ds = Dataset.from_dict({"messages": [[{"role": "user", "content": "hello"}, {"role": "assistant", "content": "world"}]] * 8})
cfg = SFTConfig(output_dir="/tmp/sft41b-tmpl", max_steps=1, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer()).train()
