# family: adapter-config
# case: KB0029-lora-target-modules-from-other-architecture
# set: runtime-42
# mode: pytest
# expect: not found in the base model
# note: pytest runs a test that wraps a Llama with a LoRA whose target_modules name GPT-NeoX's query_key_value
import _tiny
from peft import LoraConfig, get_peft_model


def test_lora_wraps_model():
    model = _tiny.llama()
    peft_model = get_peft_model(model, LoraConfig(r=4, target_modules=["query_key_value"], task_type="CAUSAL_LM"))
    assert peft_model.print_trainable_parameters() is None
