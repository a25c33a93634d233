"""PPO from trl.experimental.ppo, where trl 0.29 moved it."""
import tempfile

from trl.experimental.ppo import PPOConfig, PPOTrainer

config = PPOConfig(output_dir=tempfile.mkdtemp(), report_to="none", bf16=False)
print("kb-drift built", type(config).__name__, PPOTrainer.__name__)
