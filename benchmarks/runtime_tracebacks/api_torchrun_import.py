# family: api-drift
# mode: torchrun
# wave: 2
# expect: top_k_top_p_filtering
# note: torchrun; a generation helper importing top_k_top_p_filtering (removed from transformers)
import torch.distributed as dist

dist.init_process_group("gloo")
from transformers import top_k_top_p_filtering  # noqa: E402,F401
