# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-42
# wave: 2
# expect: not found in the base model
# note: a logging wrapper (logger.exception, exit 1): PeftModel.from_pretrained of an adapter whose config targets a GPT-NeoX's query_key_value onto a Llama
import json
import logging
import os
import sys
import tempfile
import _tiny
from peft import PeftModel

logging.basicConfig(format="%(asctime)s | %(levelname)s | %(name)s | %(message)s", level=logging.INFO)
log = logging.getLogger("serve")
folder = tempfile.mkdtemp()
with open(os.path.join(folder, "adapter_config.json"), "w") as f:
    json.dump({"peft_type": "LORA", "r": 8, "lora_alpha": 16, "target_modules": ["query_key_value"],
               "task_type": "CAUSAL_LM", "base_model_name_or_path": "EleutherAI/pythia-160m"}, f)
try:
    model = PeftModel.from_pretrained(_tiny.llama(), folder)
except Exception:
    log.exception("adapter %s could not be attached", folder)
    sys.exit(1)
