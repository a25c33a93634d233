# family: adapter-config
# wave: 2
# expect: not found|Target modules
# note: a Llama LoRA adapter (q_proj, v_proj) loaded onto a GPT-2 base
import tempfile
import _tiny
from peft import LoraConfig, PeftModel, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel

folder = tempfile.mkdtemp()
get_peft_model(_tiny.llama(), LoraConfig(r=4, target_modules=["q_proj", "v_proj"], task_type="CAUSAL_LM")).save_pretrained(folder)
base = GPT2LMHeadModel(GPT2Config(vocab_size=32, n_embd=16, n_layer=1, n_head=2, n_positions=32))
model = PeftModel.from_pretrained(base, folder)
