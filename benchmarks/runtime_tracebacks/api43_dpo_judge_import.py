# family: api-drift
# set: runtime-43
# expect: cannot import name|Judge
# note: an online-DPO script importing OnlineDPOConfig and PairRMJudge from trl 1.16 (online DPO and the judges left the top-level package; the first name fails)
import _tiny
from trl import OnlineDPOConfig, PairRMJudge

judge = PairRMJudge()
