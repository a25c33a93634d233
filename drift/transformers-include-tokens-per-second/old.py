"""TrainingArguments written for transformers <= 4.57.6: `include_tokens_per_second=True`."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), include_tokens_per_second=True, report_to="none")
print("kb-drift built", type(args).__name__)
