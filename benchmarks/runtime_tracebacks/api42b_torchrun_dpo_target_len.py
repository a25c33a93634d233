# family: api-drift
# set: runtime-42
# wave: 2
# mode: torchrun
# expect: unexpected keyword argument
# note: torchrun, 2 ranks: DPOConfig(max_target_length=...) (a keyword of older trl releases)
from trl import DPOConfig

args = DPOConfig(output_dir="/tmp/dpo42w2", max_length=512, max_prompt_length=128, max_target_length=384)
