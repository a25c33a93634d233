# family: api-drift
# set: runtime-41
# expect: LengthSampler|cannot import|No module
# note: a PPO-era script importing trl.core.LengthSampler
from trl.core import LengthSampler

sampler = LengthSampler(4, 16)
