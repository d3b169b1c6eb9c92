"""Issue 9's example blocks at their realistic sizes, PyTorch beside ours, one run.

  python3 tools/device/bench_examples.py --ours MLP.json ATTN.json [--reps 20]

MLPBlock: batch 8192, 1024 -> 4096 -> 1024 (Linear, GELU, Linear, LayerNorm);
AttentionBlock: batch 64, sequence 512, width 512 (softmax(q k^T / sqrt(d)) v).
The --ours files are `tt bench --shape full --json` outputs of the examples'
executables (examples/mlp_block, examples/attention_block). PyTorch eager and
torch.compile run in float32 with TF32 off, timed exactly as bench_pytorch.py times
the seed models (CUDA events, L2 flushed before every repetition, median, p10-p90).
"""
import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_pytorch import ours_from_file, time_ms  # noqa: E402
from make_example_goldens import AttentionBlock, MLPBlock  # noqa: E402

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False

BLOCKS = {
    # name: (module factory, input shape, forward flops)
    "MLPBlock": (lambda: MLPBlock(1024, 4096), (8192, 1024), 2 * 2 * 8192 * 1024 * 4096),
    "AttentionBlock": (lambda: AttentionBlock(512), (64, 512, 512),
                       3 * 2 * 64 * 512 * 512 * 512 + 2 * 2 * 64 * 512 * 512 * 512),
}


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ours", nargs="*", default=[], help="tt bench --json files")
    ap.add_argument("--reps", type=int, default=20)
    args = ap.parse_args()
    ours = {}
    for path in args.ours:
        ours.update(ours_from_file(path))
    print(f"Device: {torch.cuda.get_device_name()}, torch {torch.__version__}; float32, TF32 off; "
          "medians of CUDA-event timings, L2 flushed before each repetition.\n")
    print("| block | ours ms (p10-p90) | eager ms | compile ms | ours/eager | ours/compile | ours TFLOP/s |")
    print("|---|---|---|---|---|---|---|")
    for name, (make, shape, flops) in BLOCKS.items():
        torch.manual_seed(0)
        module = make().cuda().eval()
        x = torch.rand(*shape, device="cuda")
        with torch.no_grad():
            eager = time_ms(lambda: module(x), reps=args.reps)[0]
            compiled_module = torch.compile(module)
            compiled = time_ms(lambda: compiled_module(x), reps=args.reps)[0]
        o = ours.get(name)
        if o:
            med = o["median_ms"]
            print(f"| {name} | {med:.3f} ({o.get('p10_ms', float('nan')):.3f}-"
                  f"{o.get('p90_ms', float('nan')):.3f}) | {eager:.3f} | {compiled:.3f} | "
                  f"{med / eager:.3f} | {med / compiled:.3f} | {flops / med / 1e9:.1f} |")
        else:
            print(f"| {name} | - | {eager:.3f} | {compiled:.3f} | - | - | - |")


if __name__ == "__main__":
    main()
