"""A training config read from a dict (as from a YAML/JSON file), with the old key `evaluation_strategy`."""
import tempfile

from transformers import HfArgumentParser, TrainingArguments

config = {"output_dir": tempfile.mkdtemp(), "evaluation_strategy": "steps", "eval_steps": 1, "report_to": "none"}
(args,) = HfArgumentParser(TrainingArguments).parse_dict(config)
print("kb-drift parsed", args.eval_strategy)
