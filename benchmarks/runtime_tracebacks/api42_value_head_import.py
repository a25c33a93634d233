# family: api-drift
# set: runtime-42
# expect: cannot import name 'AutoModelForCausalLMWithValueHead'|has no attribute
# note: PPO-era import of trl's AutoModelForCausalLMWithValueHead on trl 1.16
from trl import AutoModelForCausalLMWithValueHead, PPOConfig

config, model = PPOConfig(), AutoModelForCausalLMWithValueHead.from_pretrained("gpt2")
