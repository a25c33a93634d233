# family: api-drift
# set: runtime-40
# mode: accelerate
# expect: unexpected keyword argument|has no attribute
# note: accelerate launch, 2 processes; TrainingArguments(overwrite_output_dir=True) from an older script
import _tiny

args = _tiny.args(overwrite_output_dir=True)
