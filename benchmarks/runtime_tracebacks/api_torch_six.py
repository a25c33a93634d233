# family: api-drift
# expect: torch._six
# note: an old helper module importing torch._six
from torch._six import inf

print(inf)
