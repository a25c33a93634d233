# family: dtype-mismatch
# case: KB0020-half-weights-fp32-inputs-no-autocast
# set: runtime-42
# mode: pytest
# expect: dtype|BFloat16|same dtype
# note: pytest: a bfloat16 Llama fed float32 inputs_embeds from an external encoder
import torch
import _tiny


def test_prefix_embeddings():
    model = _tiny.llama().to(torch.bfloat16)
    embeds = torch.randn(1, 5, 16)
    out = model(inputs_embeds=embeds)
    assert out.logits.shape[-1] == 32
