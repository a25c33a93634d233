"""ORPO from trl.experimental.orpo, where trl 0.29 moved it."""
import tempfile

from trl.experimental.orpo import ORPOConfig, ORPOTrainer

config = ORPOConfig(output_dir=tempfile.mkdtemp(), report_to="none", beta=0.1, bf16=False)
print("kb-drift built", type(config).__name__, ORPOTrainer.__name__)
