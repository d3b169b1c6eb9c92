"""compile_bench's pointwise cases (chains, trees and DAGs) in PyTorch: eager and
torch.compile, [8192, 8192] float32, against a device-to-device copy in the same run,
timed as bench_pytorch.py times everything (CUDA events, L2 flushed before every
repetition, median).

  python3 tools/device/chain_torch.py [--reps 20] [--cases "sigmoid,plain ops"]

--cases: only the cases whose names contain one of the comma-separated substrings.
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import time_ms  # noqa: E402

# (name, function, full-size tensors moved, whether it reads the [n] vector b)
CASES = [
    ("gelu(x * 0.5 + b)", lambda x, y, z, b: F.gelu(x * 0.5 + b), 2, True),
    ("(x + y) * sigmoid(z) - 1", lambda x, y, z, b: (x + y) * torch.sigmoid(z) - 1, 4, False),
    ("relu(x^T + b) * 2", lambda x, y, z, b: F.relu(x.t() + b) * 2, 2, True),
    ("tanh(gelu_tanh(x) * y) + z",
     lambda x, y, z, b: torch.tanh(F.gelu(x, approximate="tanh") * y) + z, 4, False),
    # DAGs (issue 18): GPT-2's GELU written out, swish, a value returned and read inside.
    ("gelu_tanh as plain ops",
     lambda x, y, z, b: 0.5 * x * (1 + torch.tanh(0.7978845608 * (x + 0.044715 * x.pow(3)))),
     2, False),
    ("x * sigmoid(x)", lambda x, y, z, b: x * torch.sigmoid(x), 2, False),
    ("h = x + y; relu(h) * z, h", lambda x, y, z, b: (lambda h: (F.relu(h) * z, h))(x + y), 5,
     False),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--cases", default="")
    a = p.parse_args()
    wanted = [w for w in a.cases.split(",") if w]
    n = 8192
    g = torch.Generator(device="cuda").manual_seed(0)
    x, y, z = (torch.randn(n, n, device="cuda", generator=g) for _ in range(3))
    b = torch.randn(n, device="cuda", generator=g)
    dst = torch.empty_like(x)
    copy = time_ms(lambda: dst.copy_(x), reps=a.reps)[0]
    full = 4.0 * n * n
    copy_gbs = 2 * full / (copy * 1e6)
    print(f"torch {torch.__version__} on {torch.cuda.get_device_name()}: copy {copy_gbs:.0f} GB/s")
    print(f"{'case':28s} {'eager':>8s} {'compile':>8s} {'floor':>8s} {'%eager':>7s} {'%compile':>8s}")
    for name, fn, tensors, reads_b in CASES:
        if wanted and not any(w in name for w in wanted):
            continue
        compiled = torch.compile(fn)
        compiled(x, y, z, b)
        eager = time_ms(lambda: fn(x, y, z, b), reps=a.reps)[0]
        comp = time_ms(lambda: compiled(x, y, z, b), reps=a.reps)[0]
        floor = (tensors * full + 4.0 * n * reads_b) / (copy_gbs * 1e6)
        print(f"{name:28s} {eager:8.3f} {comp:8.3f} {floor:8.3f} {100 * floor / eager:6.1f}% "
              f"{100 * floor / comp:7.1f}%")


if __name__ == "__main__":
    main()
