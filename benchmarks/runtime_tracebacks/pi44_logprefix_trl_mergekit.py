# family: package-install
# set: runtime-44
# mode: logprefix
# expect: mergekit|install|ImportError
# note: container log: a DPO run adds trl's MergeModelCallback to merge the policy into the base at each save, mergekit not installed
import _tiny
from trl.experimental.merge_model_callback import MergeConfig, MergeModelCallback

callback = MergeModelCallback(MergeConfig("linear"))
