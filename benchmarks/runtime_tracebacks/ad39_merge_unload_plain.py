# family: adapter-config
# set: runtime-39
# wave: 1
# expect: merge_and_unload|has no attribute
# note: merge_and_unload called on the base model returned by from_pretrained (the adapter was never attached)
import _tiny

model = _tiny.llama()
merged = model.merge_and_unload()
