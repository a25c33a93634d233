# family: model-unsupported
# case: KB0050-transformers-too-old-for-architecture
# set: runtime-42
# expect: does not recognize this architecture|model type|Unrecognized
# note: multiprocessing.Pool workers each load a config whose model_type ('qwen9') this transformers does not know
import json
import multiprocessing as mp
import os
import tempfile
from transformers import AutoConfig

folder = tempfile.mkdtemp()
with open(os.path.join(folder, "config.json"), "w") as f:
    json.dump({"model_type": "qwen9", "architectures": ["Qwen9ForCausalLM"], "hidden_size": 16}, f)

if __name__ == "__main__":
    with mp.Pool(2) as pool:
        configs = pool.map(AutoConfig.from_pretrained, [folder, folder])
