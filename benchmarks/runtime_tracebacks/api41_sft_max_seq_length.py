# family: api-drift
# set: runtime-41
# mode: torchrun
# expect: max_seq_length|unexpected keyword
# note: torchrun, 2 ranks: SFTConfig(max_seq_length=...) from a 2024 recipe (renamed max_length)
import _tiny  # noqa: F401
from trl import SFTConfig

cfg = SFTConfig(output_dir="/tmp/api41-msl", max_seq_length=64, report_to=[], use_cpu=True)
