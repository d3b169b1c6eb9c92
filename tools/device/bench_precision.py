#!/usr/bin/env python3
"""Issue 10's side-by-side table: the GEMM seed models at full shape in every precision
mode of ours against PyTorch float32 (TF32 off) and PyTorch TF32, eager and
torch.compile, all timed by bench_pytorch.py's method (CUDA events, L2 flushed before
every repetition, median) in the same job on the same GPU.

  python3 tools/device/bench_precision.py --ours strict=S.json tf32=T.json accurate=A.json \
      [--out table.md] [--reps 20]

Each --ours file is `tt bench --all --shape full --precision MODE --json FILE`. The
targets column checks issue 10's H100 targets: accurate models 1 and 5 <= 1.3 ms, model 3
<= 2.9 ms, model 4 <= 5.4 ms; tf32 at most PyTorch TF32 torch.compile's time.
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import MODELS, ours_by_mode, time_ms  # noqa: E402

GEMM_MODELS = [name for name, spec in MODELS.items() if spec[3] is not None]
# Issue 10's accurate targets on an H100 (ms).
ACCURATE_TARGET_H100 = {"GemmInstanceNormAddMul": 1.3, "GemmBiasReLU": 1.3,
                        "GemmSwishBiasGroupNorm": 2.9, "GemmScaleBatchNorm": 5.4}


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on
    torch.set_float32_matmul_precision("high" if on else "highest")


def time_pytorch(name, reps):
    """(eager fp32, compile fp32, eager tf32, compile tf32) medians in ms."""
    cls, init, shapes, _ = MODELS[name]
    torch.manual_seed(0)
    model = cls(*init).cuda()
    inputs = [torch.rand(s, device="cuda") for s in shapes]
    out = []
    with torch.no_grad():
        for tf32 in (False, True):
            set_tf32(tf32)
            out.append(time_ms(lambda: model(*inputs), reps=reps)[0])
            torch._dynamo.reset()  # recompile under the new matmul precision
            compiled = torch.compile(model)
            out.append(time_ms(lambda: compiled(*inputs), warmup=5, reps=reps)[0])
            torch._dynamo.reset()
    set_tf32(False)
    del model, inputs
    torch.cuda.empty_cache()
    return out[0], out[1], out[2], out[3]


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ours", nargs="*", default=[], metavar="MODE=FILE",
                    help="tt bench --precision MODE --json FILE outputs")
    ap.add_argument("--out", help="also write the markdown table here")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    ours = ours_by_mode(args.ours, ap)
    modes = [m for m in ("strict", "tf32", "accurate") if m in ours]
    dev = torch.cuda.get_device_name()
    lines = [f"Device: {dev}, torch {torch.__version__}. Medians of CUDA-event timings, L2 flushed "
             "before each repetition; full seed shapes.", "",
             "| model | " + " | ".join(f"ours {m} ms" for m in modes) +
             " | PyTorch fp32 eager | fp32 compile | TF32 eager | TF32 compile | targets |",
             "|---|" + "---|" * len(modes) + "---|---|---|---|---|"]
    for name in GEMM_MODELS:
        e32, c32, etf, ctf = time_pytorch(name, args.reps)
        ms = {m: ours[m].get(name, {}).get("median_ms", float("nan")) for m in modes}
        checks = []
        if "accurate" in ms and "H100" in dev:
            t = ACCURATE_TARGET_H100[name]
            checks.append(f"accurate {'<=' if ms['accurate'] <= t else '>'} {t}")
        if "tf32" in ms:
            checks.append(f"tf32 {'<=' if ms['tf32'] <= ctf else '>'} TF32 compile")
        lines.append(f"| {name} | " + " | ".join(f"{ms[m]:.3f}" for m in modes) +
                     f" | {e32:.3f} | {c32:.3f} | {etf:.3f} | {ctf:.3f} | {'; '.join(checks)} |")
        print(lines[-1], flush=True)
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
