"""compile_bench's four pointwise chains in PyTorch: eager and torch.compile, [8192, 8192]
float32, against a device-to-device copy in the same run, timed as bench_pytorch.py times
everything (CUDA events, L2 flushed before every repetition, median).

  python3 tools/device/chain_torch.py [--reps 20]
"""
import argparse
import os
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import time_ms  # noqa: E402

CASES = [
    ("gelu(x * 0.5 + b)", lambda x, y, z, b: F.gelu(x * 0.5 + b), 2),
    ("(x + y) * sigmoid(z) - 1", lambda x, y, z, b: (x + y) * torch.sigmoid(z) - 1, 4),
    ("relu(x^T + b) * 2", lambda x, y, z, b: F.relu(x.t() + b) * 2, 2),
    ("tanh(gelu_tanh(x) * y) + z",
     lambda x, y, z, b: torch.tanh(F.gelu(x, approximate="tanh") * y) + z, 4),
]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--reps", type=int, default=20)
    a = p.parse_args()
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
    for name, fn, tensors in CASES:
        compiled = torch.compile(fn)
        compiled(x, y, z, b)
        eager = time_ms(lambda: fn(x, y, z, b), reps=a.reps)[0]
        comp = time_ms(lambda: compiled(x, y, z, b), reps=a.reps)[0]
        floor = (tensors * full + 4.0 * n * (tensors == 2)) / (copy_gbs * 1e6)
        print(f"{name:28s} {eager:8.3f} {comp:8.3f} {floor:8.3f} {100 * floor / eager:6.1f}% "
              f"{100 * floor / comp:7.1f}%")


if __name__ == "__main__":
    main()
