# family: host-oom
# expect: Unable to allocate
# note: NumPy materialises a dataset-sized array on a small host
import resource
import numpy as np

resource.setrlimit(resource.RLIMIT_AS, (2 * 2**30, 2 * 2**30))
embeddings = np.zeros((500_000, 4096), dtype=np.float32)
