# family: hub-access
# case: KB0018-gated-model-access-denied
# set: runtime-40
# expect: gated|restricted
# note: SFTTrainer(model="<repo id>") of a gated repo, the token not approved (stand-in Hub answers 403 GatedRepo)
import _hub
_hub.serve("gated")
import _tiny
from trl import SFTConfig, SFTTrainer

cfg = SFTConfig(output_dir="/tmp/sft40-gated", max_steps=2, per_device_train_batch_size=2, report_to=[], use_cpu=True)
SFTTrainer(model="meta-llama/Llama-3.2-1B", args=cfg, train_dataset=_tiny.text_dataset())
