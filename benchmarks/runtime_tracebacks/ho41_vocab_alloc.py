# family: host-oom
# set: runtime-41
# expect: can't allocate memory|Cannot allocate memory|DefaultCPUAllocator
# note: a config with a vocabulary typed with three zeros too many (hidden 4096): the embedding cannot be allocated
import _tiny

model = _tiny.llama(vocab_size=320_000_000, hidden_size=4096, intermediate_size=64, num_attention_heads=32, num_key_value_heads=32)
