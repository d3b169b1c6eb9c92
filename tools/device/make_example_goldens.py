"""PyTorch goldens for issue 9's example blocks and single ops, in the format of the
fixtures in tests/data (safetensors; metadata model/init/inputs/mode; float32 inputs
and parameters under PyTorch's names; expected.out in float64, computed by the same
module in float64 from the same float32 values; expected.out_fp32 for reference).

  python3 tools/device/make_example_goldens.py [OUT_DIR]    (default: tests/data/examples)

writes mlp_block_small.safetensors, attention_block_small.safetensors and
ops_small.safetensors (in a folder of their own: `tt check tests/data/*.safetensors`
and the fixtures test take every file of tests/data as a seed-model fixture). tests/examples_golden_test.cpp reads them (it skips, saying
so, while they are absent). The ops file holds, for every case name of the op table
in that test, "<case>.in.<k>" inputs and "<case>.expected" (float64; int64 for
argmax/argmin). Needs only torch (the format is written by hand, no safetensors
package). Run on the GPU machine, TF32 off; the float64 results do not depend on the
device.
"""
import json
import math
import os
import struct
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

DTYPES = {torch.float32: "F32", torch.float64: "F64", torch.int64: "I64", torch.uint8: "U8"}


def save(path, tensors, metadata):
    """safetensors: 8-byte little-endian header length, JSON header, raw data."""
    header = {"__metadata__": metadata}
    blobs, offset = [], 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        data = t.numpy().tobytes()
        header[name] = {"dtype": DTYPES[t.dtype], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(data)]}
        blobs.append(data)
        offset += len(data)
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * ((8 - len(text) % 8) % 8)
    with open(path + ".tmp", "wb") as f:
        f.write(struct.pack("<Q", len(text)))
        f.write(text)
        for b in blobs:
            f.write(b)
    os.replace(path + ".tmp", path)
    print(f"wrote {path} ({len(tensors)} tensors)")


class MLPBlock(nn.Module):  # examples/mlp_block/mlp_block.h
    def __init__(self, width, hidden):
        super().__init__()
        self.fc1 = nn.Linear(width, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, width)
        self.norm = nn.LayerNorm(width)

    def forward(self, x):
        return self.norm(self.fc2(self.act(self.fc1(x))))


class AttentionBlock(nn.Module):  # examples/attention_block/attention_block.h
    def __init__(self, width):
        super().__init__()
        self.width = width
        self.q_proj = nn.Linear(width, width)
        self.k_proj = nn.Linear(width, width)
        self.v_proj = nn.Linear(width, width)

    def forward(self, x):
        q, k, v = self.q_proj(x), self.k_proj(x), self.v_proj(x)
        scores = q @ k.transpose(-2, -1) / math.sqrt(self.width)
        return torch.softmax(scores, -1) @ v


def block_golden(out_dir, file_name, model_name, module, init, x, dev):
    module = module.to(dev)
    x = x.to(dev)
    with torch.no_grad():
        out32 = module(x)
        out64 = module.double()(x.double())
    tensors = {name: p.float() for name, p in module.state_dict().items()}
    tensors["input.0"] = x
    tensors["expected.out"] = out64
    tensors["expected.out_fp32"] = out32
    meta = {"model": model_name, "init": init, "inputs": "1", "mode": "eval",
            "torch": torch.__version__}
    save(os.path.join(out_dir, file_name), tensors, meta)


def op_cases(g):
    """(case name, inputs, fn): tests/examples_golden_test.cpp has one row per name."""
    r = lambda *s: torch.randn(*s, generator=g)
    pos = lambda *s: torch.rand(*s, generator=g) * 4 + 0.25
    return [
        ("add", [r(4, 5, 6), r(5, 1)], lambda a, b: a + b),
        ("sub", [r(4, 5, 6), r(6)], lambda a, b: a - b),
        ("mul", [r(3, 1, 6), r(4, 6)], lambda a, b: a * b),
        ("div", [r(4, 6), pos(4, 6)], lambda a, b: a / b),
        ("add_scalar", [r(4, 6)], lambda a: a + 2.5),
        ("rsub_scalar", [r(4, 6)], lambda a: 2.5 - a),
        ("rdiv_scalar", [pos(4, 6)], lambda a: 3.0 / a),
        ("maximum", [r(4, 6), r(1, 6)], torch.maximum),
        ("minimum", [r(4, 6), r(4, 1)], torch.minimum),
        ("where", [(torch.rand(4, 6, generator=g) > 0.5).to(torch.uint8), r(4, 6), r(6)],
         lambda c, a, b: torch.where(c.bool(), a, b)),
        ("neg", [r(5, 7)], torch.neg),
        ("abs", [r(5, 7)], torch.abs),
        ("exp", [r(5, 7)], torch.exp),
        ("log", [pos(5, 7)], torch.log),
        ("sqrt", [pos(5, 7)], torch.sqrt),
        ("rsqrt", [pos(5, 7)], torch.rsqrt),
        ("tanh", [r(5, 7)], torch.tanh),
        ("pow3", [r(5, 7)], lambda x: torch.pow(x, 3.0)),
        ("pow_half", [pos(5, 7)], lambda x: torch.pow(x, 0.5)),
        ("clamp", [r(5, 7)], lambda x: torch.clamp(x, -0.5, 0.5)),
        ("gelu", [r(5, 7)], F.gelu),
        ("gelu_tanh", [r(5, 7)], lambda x: F.gelu(x, approximate="tanh")),
        ("silu", [r(5, 7)], F.silu),
        ("leaky_relu", [r(5, 7)], lambda x: F.leaky_relu(x, 0.2)),
        ("relu", [r(5, 7)], F.relu),
        ("sigmoid", [r(5, 7)], torch.sigmoid),
        ("matmul_2d", [r(7, 9), r(9, 5)], torch.matmul),
        ("matmul_batch_2d", [r(3, 7, 9), r(9, 5)], torch.matmul),
        ("matmul_vec_batch", [r(9), r(3, 9, 5)], torch.matmul),
        ("matmul_broadcast", [r(2, 1, 4, 9), r(3, 9, 6)], torch.matmul),
        ("matmul_dot", [r(9), r(9)], torch.matmul),
        ("bmm", [r(3, 7, 9), r(3, 9, 5)], torch.bmm),
        ("sum_dim1_keep", [r(4, 5, 6)], lambda x: x.sum(1, keepdim=True)),
        ("mean_all", [r(4, 5, 6)], lambda x: x.mean()),
        ("var_02", [r(4, 5, 6)], lambda x: x.var((0, 2))),
        ("std_last_biased", [r(4, 5, 6)], lambda x: x.std(-1, unbiased=False)),
        ("amax_1", [r(4, 5, 6)], lambda x: x.amax(1)),
        ("amin_all", [r(4, 5, 6)], lambda x: x.amin()),
        ("argmax_1", [r(4, 5, 6)], lambda x: x.argmax(1)),
        ("argmin_last", [r(4, 5, 6)], lambda x: x.argmin(-1)),
        ("softmax_last", [r(4, 5, 6) * 4], lambda x: torch.softmax(x, -1)),
        ("softmax_0", [r(4, 5, 6) * 4], lambda x: torch.softmax(x, 0)),
        ("log_softmax_1", [r(4, 5, 6) * 4], lambda x: torch.log_softmax(x, 1)),
        ("layer_norm_affine", [r(4, 5, 6) * 3 + 1, r(6), r(6)],
         lambda x, w, b: F.layer_norm(x, (6,), w, b)),
        ("layer_norm_2d", [r(4, 5, 6) * 3 + 1], lambda x: F.layer_norm(x, (5, 6))),
        ("rms_norm", [r(4, 5, 6) * 3, r(6)], lambda x, w: F.rms_norm(x, (6,), w)),
        ("cat_1", [r(2, 3, 4), r(2, 5, 4)], lambda a, b: torch.cat([a, b], 1)),
        ("stack_last", [r(2, 3), r(2, 3)], lambda a, b: torch.stack([a, b], -1)),
    ]


def cases_golden(path, model, cases, save_fn=save):
    """Each case's inputs as "<case>.in.<k>" and its result on them in float64 as
    "<case>.expected", in one file."""
    tensors = {}
    for name, inputs, fn in cases:
        for k, t in enumerate(inputs):
            tensors[f"{name}.in.{k}"] = t
        tensors[f"{name}.expected"] = fn(*[t.double() if t.is_floating_point() else t
                                           for t in inputs])
    save_fn(path, tensors, {"model": model, "torch": torch.__version__})


def start(seed):
    """The output folder (argv[1], else tests/data/examples; created), the device the
    modules run on, and the generator the inputs come from."""
    out_dir = sys.argv[1] if len(sys.argv) > 1 else "tests/data/examples"
    os.makedirs(out_dir, exist_ok=True)
    torch.manual_seed(0)
    dev = "cuda" if torch.cuda.is_available() else "cpu"
    return out_dir, dev, torch.Generator().manual_seed(seed)


def main():
    out_dir, dev, g = start(0)
    block_golden(out_dir, "mlp_block_small.safetensors", "MLPBlock", MLPBlock(64, 256).eval(),
                 "[64, 256]", torch.randn(16, 64, generator=g), dev)
    block_golden(out_dir, "attention_block_small.safetensors", "AttentionBlock",
                 AttentionBlock(64).eval(), "[64]", torch.randn(4, 32, 64, generator=g), dev)
    cases_golden(os.path.join(out_dir, "ops_small.safetensors"), "ops", op_cases(g))


if __name__ == "__main__":
    main()
