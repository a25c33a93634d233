# family: adapter-config
# set: runtime-44
# wave: 2
# expect: feedforward_modules|subset|target_modules
# note: SFTTrainer given an IA3 peft_config built inline, its feedforward_modules outside its target_modules
import _tiny
from peft import IA3Config
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft-out", max_steps=1, report_to=[], use_cpu=True)
trainer = SFTTrainer(model=_tiny.llama(), args=cfg, train_dataset=_tiny.text_dataset(), processing_class=_tiny.tokenizer(),
                     peft_config=IA3Config(task_type="CAUSAL_LM", target_modules=["q_proj"], feedforward_modules=["up_proj"]))
