"""An optimizer name every release knows."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), optim="adamw_torch", report_to="none")
print("kb-drift built", type(args).__name__, args.optim)
