"""ORPO imported from trl's top level, as trl <= 0.28 code does."""
import tempfile

from trl import ORPOConfig, ORPOTrainer

config = ORPOConfig(output_dir=tempfile.mkdtemp(), report_to="none", beta=0.1, bf16=False)
print("kb-drift built", type(config).__name__, ORPOTrainer.__name__)
