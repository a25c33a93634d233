# family: adapter-config
# case: KB0030-lora-adapter-on-base-of-other-size
# expect: size mismatch
# note: an adapter trained on a wider base loaded onto a smaller one
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model

folder = tempfile.mkdtemp()
big = get_peft_model(_tiny.llama(hidden_size=32, intermediate_size=64),
                     LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM"))
big.save_pretrained(folder)
small = _tiny.llama()
model = PeftModel.from_pretrained(small, folder)
