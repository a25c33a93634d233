# family: package-install
# wave: 2
# expect: unsloth
# note: a notebook's training script run in an environment without unsloth
from unsloth import FastLanguageModel  # noqa: F401
