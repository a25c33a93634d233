"""TrainingArguments for transformers >= 5.0.0: `use_cpu`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), use_cpu=True, report_to="none")
print("kb-drift built", type(args).__name__)
