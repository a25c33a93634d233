# family: api-drift
# expect: unexpected keyword
# note: SFTConfig(max_seq_length=...) (renamed max_length in trl)
from trl import SFTConfig

cfg = SFTConfig(output_dir="out", max_seq_length=1024, packing=True)
