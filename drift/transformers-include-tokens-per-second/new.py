"""TrainingArguments for transformers >= 5.0.0: no `include_tokens_per_second` (none replaces it)."""
import tempfile

from transformers import TrainingArguments

args = TrainingArguments(output_dir=tempfile.mkdtemp(), include_num_input_tokens_seen="all", report_to="none")
print("kb-drift built", type(args).__name__)
