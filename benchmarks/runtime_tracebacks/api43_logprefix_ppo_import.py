# family: api-drift
# set: runtime-43
# mode: logprefix
# expect: cannot import name|PPO
# note: a containerised job's log: an RLHF script importing PPOConfig and PPOTrainer from trl 1.16 (PPO left the top-level package)
import _tiny
from trl import PPOConfig, PPOTrainer

config = PPOConfig(learning_rate=1.4e-5, batch_size=4)
