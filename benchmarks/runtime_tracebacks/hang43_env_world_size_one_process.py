# family: hang
# set: runtime-43
# expect: timeout|Timed out|wait
# note: a launcher script sets WORLD_SIZE=2 for a process started once (the second never launched) and inits the group with a 5 s timeout
import datetime
import os
import socket
import torch.distributed as dist

with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), WORLD_SIZE="2", RANK="0")
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=5))
