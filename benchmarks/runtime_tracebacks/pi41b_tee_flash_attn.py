# family: package-install
# case: KB0042-flash-attention-2-without-flash-attn
# set: runtime-41
# wave: 2
# mode: torchrun-tee
# expect: flash_attn|FlashAttention|flash
# note: torchrun --tee 3, 2 ranks: from_pretrained(attn_implementation="flash_attention_2") without flash-attn installed
import _tiny
from transformers import AutoModelForCausalLM

folder = _tiny.saved_llama()
model = AutoModelForCausalLM.from_pretrained(folder, attn_implementation="flash_attention_2")
