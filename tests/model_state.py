"""Everything a run of the capture could leave changed on the caller's model, taken before and compared after:
"left as it was" means every parameter's and buffer's values, storage, dtype, device and requires_grad, every
module's train/eval mode, no function left at a hook point and no torch hook left on a module."""

from __future__ import annotations


def model_state(model) -> dict:
    """The model's state, copied (the values cloned, so a later change in place shows)."""
    tensors = [*model.named_parameters(remove_duplicate=False), *model.named_buffers(remove_duplicate=False)]
    return {
        "tensors": {
            name: {
                "values": tensor.detach().clone(),
                "storage": tensor.data_ptr(),
                "shape": tuple(tensor.shape),
                "dtype": tensor.dtype,
                "device": tensor.device,
                "requires_grad": tensor.requires_grad,
            }
            for name, tensor in tensors
        },
        "training": {name: module.training for name, module in model.named_modules()},
        "hook functions": {name: list(point.functions) for name, point in model.hook_points.items()},
        "torch hooks": {
            name: (len(module._forward_hooks), len(module._forward_pre_hooks), len(module._backward_hooks))
            for name, module in model.named_modules()
        },
    }


def changes(before: dict, model) -> list[str]:
    """What differs between `before` (model_state) and the model now, one line each; [] when it is as it was."""
    import torch

    after = model_state(model)
    found = []
    for name in sorted(before["tensors"].keys() | after["tensors"].keys()):
        was, now = before["tensors"].get(name), after["tensors"].get(name)
        if was is None or now is None:
            found.append(f"{name}: {'added' if was is None else 'gone'}")
            continue
        found += [f"{name}: {key} {was[key]} -> {now[key]}" for key in was if key != "values" and was[key] != now[key]]
        if was["shape"] == now["shape"] and not torch.equal(was["values"], now["values"].to(was["device"])):
            found.append(f"{name}: its values changed")
    for key in ("training", "hook functions", "torch hooks"):
        found += [
            f"{key} of {name}: {before[key].get(name)} -> {after[key].get(name)}"
            for name in sorted(before[key].keys() | after[key].keys())
            if before[key].get(name) != after[key].get(name)
        ]
    return found
