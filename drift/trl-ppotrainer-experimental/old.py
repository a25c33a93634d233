"""PPO imported from trl's top level, as trl <= 0.28 code does."""
import tempfile

from trl import PPOConfig, PPOTrainer

config = PPOConfig(output_dir=tempfile.mkdtemp(), report_to="none", bf16=False)
print("kb-drift built", type(config).__name__, PPOTrainer.__name__)
