# family: multi-gpu-launch
# set: runtime-44
# mode: distlaunch
# expect: local-rank|local_rank|not used by the HfArgumentParser|unrecognized
# note: python -m torch.distributed.launch (the old launcher, which passes --local-rank=N) of a script whose HfArgumentParser knows only its own dataclass
from dataclasses import dataclass, field
from transformers import HfArgumentParser


@dataclass
class ScriptArguments:
    model_name: str = field(default="tiny-llama")
    lr: float = field(default=2e-4)


(script_args,) = HfArgumentParser(ScriptArguments).parse_args_into_dataclasses()
print(script_args)
