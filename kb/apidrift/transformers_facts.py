"""transformers-only facts: the config registry's model types and the rope_scaling format checks."""

from __future__ import annotations

import ast

from kb.apidrift.wheel import Wheel, string_value

_REGISTRY_FILES = ("transformers.models.auto.configuration_auto", "transformers.models.auto.auto_mappings")
_ROPE_FILES = ("transformers.models.llama.configuration_llama", "transformers.modeling_rope_utils")


def model_types(wheel: Wheel) -> list[str]:
    """Keys of CONFIG_MAPPING_NAMES: every literal assigned to it or passed to its .update()."""
    found: list[str] = []
    for module in _REGISTRY_FILES:
        tree = wheel.tree(module)
        if tree is None:
            continue
        for node in ast.walk(tree):
            literal = None
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "CONFIG_MAPPING_NAMES" for t in node.targets):
                literal = node.value
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update"
                  and getattr(node.func.value, "id", "") == "CONFIG_MAPPING_NAMES"):
                literal = node
            if literal is None:
                continue
            for sub in ast.walk(literal):
                if isinstance(sub, ast.Tuple) and len(sub.elts) == 2:
                    key = string_value(sub.elts[0])
                    if key and string_value(sub.elts[1]):
                        found.append(key)
                elif isinstance(sub, ast.Dict):
                    for key_node, value in zip(sub.keys, sub.values):
                        key = string_value(key_node) if key_node is not None else None
                        if key and string_value(value):
                            found.append(key)
    return sorted(set(found))


def rope_checks(wheel: Wheel) -> dict:
    """What the rope_scaling validation of this release says and accepts.

    messages: texts of errors/warnings about `rope_scaling` in the Llama config and the shared rope
    utilities ("`rope_scaling` must be a dictionary with two fields, `type` and `factor`, ...");
    rope_types: the rope types the release knows (keys of ROPE_INIT_FUNCTIONS), empty when it has no
    such table (then only the two-field form with type linear/dynamic is accepted).
    """
    messages: list[str] = []
    rope_types: list[str] = []
    for module in _ROPE_FILES:
        tree = wheel.tree(module)
        if tree is None:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and node.args:
                text = string_value(node.args[0])
                if text and "rope_scaling" in text and any(w in text for w in ("must", "should", "only")):
                    text = " ".join(text.split())
                    if text not in messages:
                        messages.append(text)
            if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "ROPE_INIT_FUNCTIONS" for t in node.targets):
                if isinstance(node.value, ast.Dict):
                    rope_types += [k for k in (string_value(k) for k in node.value.keys if k is not None) if k]
    return {"messages": messages, "rope_types": sorted(set(rope_types))}
