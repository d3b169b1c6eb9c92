"""PyTorch timings of the same normalisation passes the norm harness times, on the
same device (eager, and torch.compile for models 2 and 3), so that the harness's
numbers compare like with like. Median of 20 after warm-up, L2 flushed each rep."""
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import time_samples  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
dev = "cuda"


def median_ms(fn, reps=20):
    return sorted(time_samples(fn, warmup=3, reps=reps))[reps // 2]


def row(name, ms, nbytes):
    print(f"TORCH {name:44s} {ms:8.4f} ms {nbytes / ms / 1e6:7.0f} GB/s", flush=True)


@torch.no_grad()
def main():
    compile_too = "--compile" in sys.argv
    # model 1's pass
    Y = torch.randn(1024, 8192, device=dev)
    y = torch.rand(1024, 8192, device=dev)
    m1 = lambda: (F.instance_norm(Y[:, None, None, :].squeeze(1)) .squeeze(1) + y) * y
    row("model1 pass eager", median_ms(m1), 3 * Y.numel() * 4)
    del Y, y
    # model 3's pass
    Y = torch.randn(32768, 4096, device=dev)
    bias = torch.randn(4096, device=dev)
    gn = torch.nn.GroupNorm(64, 4096).to(dev)
    m3 = lambda: gn(torch.sigmoid(Y) * Y + bias)
    row("model3 pass eager", median_ms(m3), 2 * Y.numel() * 4)
    if compile_too:
        t = time.time()
        c3 = torch.compile(m3)
        c3()
        row(f"model3 pass compile ({time.time() - t:.0f} s to compile)", median_ms(c3),
            2 * Y.numel() * 4)
    del Y
    # model 4's pass (training)
    Y = torch.randn(16384, 4096, device=dev)
    scale = torch.randn(4096, device=dev)
    bn = torch.nn.BatchNorm1d(4096).to(dev).train()
    m4 = lambda: bn(Y * scale)
    row("model4 pass eager (train)", median_ms(m4), 3 * Y.numel() * 4)
    del Y
    # model 2
    x = torch.rand(112, 64, 512, 512, device=dev)
    inorm = torch.nn.InstanceNorm2d(64).to(dev)
    row("model2 InstanceNorm2d eager", median_ms(lambda: inorm(x)), 2 * x.numel() * 4)
    if compile_too:
        t = time.time()
        c2 = torch.compile(inorm)
        c2(x)
        row(f"model2 InstanceNorm2d compile ({time.time() - t:.0f} s to compile)",
            median_ms(lambda: c2(x)), 2 * x.numel() * 4)


main()
