#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Export a PyTorch model as the ONNX file or JSON layer list that `cnnperf predict --net` reads.

The model is traced with torch.onnx.export on the CPU (no GPU needed). The ONNX graph is the
faithful form: it holds every op the forward pass runs, the functional ones too (residual
`+`, torch.cat, F.relu, torch.flatten, ShuffleNet's view/transpose), which module hooks would
not see. A .json output is that ONNX file read by cnnperf's own importer
(`cnnperf nets show FILE.onnx --layer-list`), so both outputs give the same layers.
"""

import argparse
import contextlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXIT_BAD_INPUT = 2
# torch 1.13 writes opsets 7..17; cnnperf's importer reads up to 17 (docs/model-import.md).
MIN_OPSET, MAX_OPSET, DEFAULT_OPSET = 9, 17, 14
DEFAULT_RESOLUTION = 224

EPILOG = """examples:
  tools/torch_export.py resnet50 -o resnet50.onnx
  tools/torch_export.py efficientnet_b0 --input-shape 8,3,224,224 -o effb0_b8.json
  tools/torch_export.py my_models.py:build_net --input-shape 1,3,256,256 -o net.onnx
  cnnperf predict --net resnet50.onnx --gpu a100

MODEL is a torchvision.models name (torchvision.models.list_models()) or FILE.py:FUNCTION,
a function taking no arguments that returns a torch.nn.Module. The output's format follows
its extension (.onnx or .json). Weights are zero placeholders unless --keep-init: cnnperf
reads shapes, never weight values. Bad input (unknown model, bad shape, factory not found,
failed trace) is a one-line error and exit status 2.
"""


class BadInput(Exception):
    """A user error: printed as one line, exit status 2."""


def parse_shape(text):
    parts = text.split(",")
    try:
        dims = [int(p) for p in parts]
    except ValueError:
        raise BadInput(f"--input-shape: expected N,C,H,W (positive integers), got '{text}'") from None
    if len(dims) != 4 or any(d <= 0 for d in dims):
        raise BadInput(f"--input-shape: expected N,C,H,W (4 positive integers), got '{text}'")
    return dims


@contextlib.contextmanager
def zero_init(enabled):
    """Replaces torch.nn.init's initializers by a zero fill while models are built.

    Random initialization dominates the construction of the large models (VGG, wide ResNets);
    cnnperf never reads weight values, and zeros (unlike uninitialized memory) hold no
    denormals that would slow the traced forward pass."""
    import torch
    import torch.nn.init as init

    if not enabled:
        yield
        return
    names = [n for n in dir(init) if n.endswith("_") and not n.startswith("_")]
    saved = {n: getattr(init, n) for n in names}

    def fill_zero(tensor, *args, **kwargs):
        with torch.no_grad():
            return tensor.zero_()

    try:
        for n in names:
            setattr(init, n, fill_zero)
        yield
    finally:
        for n, fn in saved.items():
            setattr(init, n, fn)


def torchvision_model(name):
    """The model and its default input resolution (the weights' crop size, e.g. 600 for
    efficientnet_b7), or BadInput naming the closest known names."""
    import torchvision.models as tvm

    names = tvm.list_models()
    if name not in names:
        import difflib

        close = difflib.get_close_matches(name, names, n=4, cutoff=0.5)
        hint = f" (closest: {', '.join(close)})" if close else ""
        raise BadInput(f"{name}: not a torchvision {_tv_version()} model name{hint}; "
                       "see torchvision.models.list_models(), or give FILE.py:FUNCTION")
    resolution = DEFAULT_RESOLUTION
    try:
        weights = list(tvm.get_model_weights(name))
        crop = weights[0].transforms.keywords.get("crop_size") if weights else None
        if isinstance(crop, int):
            resolution = crop
    except (ValueError, AttributeError, TypeError):
        pass  # no weights enum: the default resolution
    kwargs = {"weights": None}
    if name in ("googlenet", "inception_v3"):
        # Built without weights these keep their auxiliary classifiers, which eval mode skips.
        kwargs["init_weights"] = True
    return tvm.get_model(name, **kwargs), resolution


def _tv_version():
    import torchvision

    return torchvision.__version__.split("+")[0]


def factory_model(spec):
    path_text, _, func_name = spec.rpartition(":")
    path = Path(path_text)
    if not path.is_file():
        raise BadInput(f"{path_text}: no such file (MODEL FILE.py:FUNCTION)")
    if not func_name.isidentifier():
        raise BadInput(f"{spec}: expected FILE.py:FUNCTION with a Python function name after ':'")
    module_spec = importlib.util.spec_from_file_location(f"_torch_export_{path.stem}", path)
    if module_spec is None or module_spec.loader is None:
        raise BadInput(f"{path_text}: not a Python file")
    module = importlib.util.module_from_spec(module_spec)
    sys.path.insert(0, str(path.resolve().parent))
    try:
        module_spec.loader.exec_module(module)
    except Exception as e:  # noqa: BLE001 - any failure of the user's file is bad input
        raise BadInput(f"{path_text}: failed to import: {type(e).__name__}: {e}") from None
    factory = getattr(module, func_name, None)
    if factory is None or not callable(factory):
        raise BadInput(f"{path_text}: no function '{func_name}'")
    try:
        model = factory()
    except Exception as e:  # noqa: BLE001
        raise BadInput(f"{spec}: the factory raised {type(e).__name__}: {e}") from None
    import torch

    if not isinstance(model, torch.nn.Module):
        raise BadInput(f"{spec}: the factory returned {type(model).__name__}, expected a torch.nn.Module")
    return model


def build_model(spec, keep_init):
    with zero_init(not keep_init):
        if ":" in spec and spec.rpartition(":")[0].endswith(".py"):
            return factory_model(spec), None
        if spec.endswith(".py"):
            raise BadInput(f"{spec}: expected FILE.py:FUNCTION (the function returning the model)")
        return torchvision_model(spec)


def export_onnx(model, shape, path, opset):
    import torch

    model.eval()
    example = torch.zeros(*shape)
    # PRESERVE with an eval-mode model exports inference ops without the EVAL-only peephole
    # pass, which folds BatchNormalization into the preceding Conv: cnnperf prices the
    # batchnorm kernel PyTorch runs. Dropout is identity in eval mode and is not exported.
    try:
        with torch.no_grad(), warnings_off():
            torch.onnx.export(model, example, str(path), opset_version=opset,
                              training=torch.onnx.TrainingMode.PRESERVE,
                              do_constant_folding=True, input_names=["input"],
                              output_names=["output"])
    except Exception as e:  # noqa: BLE001 - a model that does not trace at this shape
        first = str(e).strip().splitlines()[0] if str(e).strip() else ""
        raise BadInput(f"tracing at input shape {','.join(map(str, shape))} failed: "
                       f"{type(e).__name__}: {first}") from None


SMALL_TENSOR = 64  # elements: shape arithmetic, never weights


def fold_shape_arithmetic(path):
    """Replaces shape computations on static shapes by constants, in place.

    torch.onnx 1.13 writes `x.chunk(2, dim=1)` (ShuffleNet) as Shape -> Gather -> Add -> Div ->
    Mul -> Slice: the input shape is static, but ONNX 1.12's data propagation has no Div, so
    the Slice's output shape stays unknown to an importer. Evaluating that integer arithmetic
    here (the input shape is fixed at export) leaves Slices with constant bounds."""
    import onnx
    import onnx.numpy_helper  # noqa: F401 - submodules load on import only
    import onnx.shape_inference  # noqa: F401

    model = onnx.load(str(path))
    graph = model.graph
    if not any(n.op_type == "Shape" for n in graph.node):
        return
    for _ in range(16):  # each round resolves the shapes the previous round's constants fixed
        values = _small_constants(graph)
        shapes = _static_shapes(model)
        changed = False
        for i, node in enumerate(graph.node):
            if node.op_type == "Constant" or len(node.output) != 1:
                continue
            value = _evaluate(node, values, shapes)
            if value is None:
                continue
            values[node.output[0]] = value
            graph.node[i].CopyFrom(onnx.helper.make_node(
                "Constant", [], [node.output[0]], name=node.name,
                value=onnx.numpy_helper.from_array(value)))
            changed = True
        if not changed:
            break
    _drop_unused_constants(graph)
    onnx.save(model, str(path))


def _small_constants(graph):
    import onnx
    import onnx.numpy_helper  # noqa: F401 - submodules load on import only
    import onnx.shape_inference  # noqa: F401

    values = {}
    for init in graph.initializer:
        if _count(init.dims) <= SMALL_TENSOR:
            values[init.name] = onnx.numpy_helper.to_array(init)
    for node in graph.node:
        if node.op_type == "Constant":
            for attr in node.attribute:
                if attr.name == "value":
                    values[node.output[0]] = onnx.numpy_helper.to_array(attr.t)
    return values


def _count(dims):
    n = 1
    for d in dims:
        n *= d
    return n


def _static_shapes(model):
    """Every tensor's fully static shape, by ONNX shape inference on the graph without its
    weight data (the dims are all inference reads)."""
    import onnx
    import onnx.numpy_helper  # noqa: F401 - submodules load on import only
    import onnx.shape_inference  # noqa: F401

    saved = []
    for init in model.graph.initializer:
        if _count(init.dims) > SMALL_TENSOR:
            saved.append((init, init.raw_data))
            init.ClearField("raw_data")
    try:
        inferred = onnx.shape_inference.infer_shapes(model, data_prop=True)
    finally:
        for init, raw in saved:
            init.raw_data = raw
    shapes = {init.name: list(init.dims) for init in model.graph.initializer}
    g = inferred.graph
    for info in list(g.input) + list(g.value_info) + list(g.output):
        dims = info.type.tensor_type.shape.dim
        if info.type.tensor_type.HasField("shape") and all(d.HasField("dim_value") for d in dims):
            shapes[info.name] = [d.dim_value for d in dims]
    return shapes


def _evaluate(node, values, shapes):
    """The output of a shape-arithmetic node whose inputs are known, else None."""
    import numpy as np
    import onnx
    import onnx.numpy_helper  # noqa: F401 - submodules load on import only
    import onnx.shape_inference  # noqa: F401

    op = node.op_type
    attrs = {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}
    if op == "Shape":
        shape = shapes.get(node.input[0])
        if shape is None:
            return None
        return np.array(shape, dtype=np.int64)[attrs.get("start", 0):attrs.get("end")]
    ins = [values.get(name) if name else None for name in node.input]
    if not ins or ins[0] is None:
        return None
    required = {"Gather": 2, "Add": 2, "Sub": 2, "Mul": 2, "Div": 2, "Concat": len(ins),
                "Unsqueeze": 1, "Squeeze": 1, "Cast": 1, "Slice": 3, "Expand": 2}
    if op not in required or any(v is None for v in ins[:required[op]]):
        return None
    a = ins[0]
    if op == "Gather":
        return np.take(a, ins[1], axis=attrs.get("axis", 0))
    if op in ("Add", "Sub", "Mul"):
        return {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply}[op](a, ins[1]).astype(a.dtype)
    if op == "Div":
        if np.issubdtype(a.dtype, np.integer):
            return np.trunc(a / ins[1]).astype(a.dtype)  # ONNX integer Div truncates
        return (a / ins[1]).astype(a.dtype)
    if op == "Concat":
        return np.concatenate(ins, axis=attrs["axis"])
    if op in ("Unsqueeze", "Squeeze"):
        axes = attrs.get("axes", ins[1] if len(ins) > 1 else None)
        if op == "Unsqueeze":
            out = a
            for axis in sorted(int(x) % (a.ndim + len(axes)) for x in axes):
                out = np.expand_dims(out, axis)
            return out
        return np.squeeze(a, axis=None if axes is None else tuple(int(x) for x in axes))
    if op == "Cast":
        return a.astype(onnx.mapping.TENSOR_TYPE_TO_NP_TYPE[attrs["to"]])
    if op == "Expand":
        return np.broadcast_to(a, np.broadcast_shapes(a.shape, tuple(ins[1]))).copy()
    # Slice (opset >= 10: starts, ends, axes, steps as inputs)
    axes = ins[3] if len(ins) > 3 and ins[3] is not None else range(len(ins[1]))
    steps = ins[4] if len(ins) > 4 and ins[4] is not None else [1] * len(ins[1])
    index = [slice(None)] * a.ndim
    for start, end, axis, step in zip(ins[1], ins[2], axes, steps):
        index[int(axis)] = slice(int(start), int(end), int(step))
    return a[tuple(index)]


def _drop_unused_constants(graph):
    while True:
        used = {name for node in graph.node for name in node.input}
        used |= {out.name for out in graph.output}
        dead = [i for i, node in enumerate(graph.node)
                if node.op_type == "Constant" and node.output[0] not in used]
        if not dead:
            return
        for i in reversed(dead):
            del graph.node[i]


@contextlib.contextmanager
def warnings_off():
    import warnings

    with warnings.catch_warnings():
        # The constant-folding advice concerns training-mode models; this one is in eval mode.
        warnings.simplefilter("ignore")
        yield


def find_cnnperf(given):
    if given:
        if not (os.path.isfile(given) and os.access(given, os.X_OK)):
            raise BadInput(f"--cnnperf {given}: not an executable file")
        return given
    on_path = shutil.which("cnnperf")
    if on_path:
        return on_path
    built = Path(__file__).resolve().parent.parent / "build" / "cnnperf"
    if built.is_file():
        return str(built)
    raise BadInput("a .json output needs the cnnperf binary: put it on PATH or give --cnnperf PATH")


def onnx_to_layer_list(cnnperf, onnx_path, json_path):
    proc = subprocess.run([cnnperf, "nets", "show", str(onnx_path), "--layer-list", "-o",
                           str(json_path)], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        detail = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise BadInput(f"cnnperf could not import the traced model: {detail}")


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="torch_export.py", description=__doc__.splitlines()[0], epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="torchvision model name, or FILE.py:FUNCTION")
    parser.add_argument("-o", "--output", required=True, help="output file: NAME.onnx or NAME.json")
    parser.add_argument("--input-shape", metavar="N,C,H,W",
                        help="example input (required for FILE.py:FUNCTION; torchvision default "
                             "1,3,S,S with S the weights' crop size, e.g. 299 for inception_v3)")
    parser.add_argument("--opset", type=int, default=DEFAULT_OPSET,
                        help=f"ONNX opset, {MIN_OPSET}..{MAX_OPSET} (default {DEFAULT_OPSET})")
    parser.add_argument("--cnnperf", help="cnnperf binary for a .json output (default: on PATH, "
                                          "else build/cnnperf of this checkout)")
    parser.add_argument("--keep-init", action="store_true",
                        help="run the model's own weight initializers (slower; cnnperf does not "
                             "read weights)")
    args = parser.parse_args(argv)
    try:
        return run(args)
    except BadInput as e:
        print(f"torch_export.py: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT


def run(args):
    out = Path(args.output)
    suffix = out.suffix.lower()
    if suffix not in (".onnx", ".json"):
        raise BadInput(f"{args.output}: expected an output ending in .onnx or .json")
    if not MIN_OPSET <= args.opset <= MAX_OPSET:
        raise BadInput(f"--opset: expected {MIN_OPSET}..{MAX_OPSET}, got {args.opset}")
    shape = parse_shape(args.input_shape) if args.input_shape else None
    out_dir = out.parent if str(out.parent) else Path(".")
    if not out_dir.is_dir():
        raise BadInput(f"{args.output}: no such directory '{out_dir}'")
    is_factory = ":" in args.model and args.model.rpartition(":")[0].endswith(".py")
    if is_factory and shape is None:
        raise BadInput(f"{args.model}: a FILE.py:FUNCTION model needs --input-shape N,C,H,W")
    cnnperf = find_cnnperf(args.cnnperf) if suffix == ".json" else None
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
    except ImportError as e:
        print(f"torch_export.py: error: {e.name} is not installed (Debian: apt-get install "
              "python3-torch python3-torchvision python3-onnx)", file=sys.stderr)
        return 1

    model, resolution = build_model(args.model, args.keep_init)
    if shape is None:
        shape = [1, 3, resolution, resolution]
    # Written next to the output and renamed over it: a reader never sees a partial file.
    with tempfile.TemporaryDirectory(dir=out_dir, prefix=f".{out.name}.") as tmp:
        onnx_path = Path(tmp) / "model.onnx"
        export_onnx(model, shape, onnx_path, args.opset)
        fold_shape_arithmetic(onnx_path)
        if suffix == ".json":
            result = Path(tmp) / "model.json"
            onnx_to_layer_list(cnnperf, onnx_path, result)
        else:
            result = onnx_path
        os.replace(result, out)
    print(f"wrote {out} ({args.model}, input {','.join(map(str, shape))}, opset {args.opset})",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
