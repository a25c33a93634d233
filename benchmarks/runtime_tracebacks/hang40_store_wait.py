# family: hang
# set: runtime-40
# expect: [Tt]imeout|timed out|Wait timeout
# note: a launcher's TCPStore client waiting for a key the master never sets (5 s timeout)
from datetime import timedelta
import torch.distributed as dist

master = dist.TCPStore("127.0.0.1", 0, 2, True, timeout=timedelta(seconds=5), wait_for_workers=False)
client = dist.TCPStore("127.0.0.1", master.port, 2, False, timeout=timedelta(seconds=5))
client.get("rank_1_ready")
