# family: training-data
# case: KB0043-conversational-rows-without-chat-template
# expect: chat
# note: SFTTrainer on "messages" rows with a base tokenizer that has no chat template
import _tiny
from datasets import Dataset
from trl import SFTConfig, SFTTrainer

rows = [[{"role": "user", "content": "question"}, {"role": "assistant", "content": "answer"}]] * 8
ds = Dataset.from_dict({"messages": rows})
cfg = SFTConfig(output_dir="/tmp/sft-out2", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=ds, processing_class=_tiny.tokenizer())
trainer.train()
