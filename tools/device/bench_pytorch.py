#!/usr/bin/env python3
"""Side-by-side benchmark of the five seed models at full shape: PyTorch eager,
torch.compile, cuBLAS GEMM alone (x @ W.t()), the memory floor, and tensortune's own
times read from `tt bench --json` (run in the same job, on the same GPU).

All float32, TF32 off, no_grad. Timed by the same method as `tt bench`
(core/cuda/timing.cpp): 3 warm-up calls, then 20 repetitions each bracketed by CUDA
events on the current stream, the L2 cache flushed before every repetition by a
memset of max(2 x L2, 64 MiB) with a byte that changes per repetition, and the median
and the 10th/90th percentiles interpolated linearly between ranks. Prints one markdown
table; --out writes it (and the raw numbers as JSON); --json writes every PyTorch
timing in Google Benchmark's JSON format (the format of `tt bench --json`), so that
tools/bench_compare.py compares the two.
"""
import argparse
import json
import statistics
import sys

import warnings

import torch
import torch.nn as nn

# InstanceNorm2d(out_features) on a 1-channel input warns on every call (model 1 as
# KernelBench writes it); the warning is expected.
warnings.filterwarnings("ignore", message="input's size at dim=1 does not match num_features")

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


class GemmInstanceNormAddMul(nn.Module):
    def __init__(self, in_features, out_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.bmm = nn.Linear(in_features, out_features)
        self.instance_norm = nn.InstanceNorm2d(out_features, eps=eps, momentum=momentum)

    def forward(self, x, y):
        x = self.bmm(x)
        x = self.instance_norm(x.unsqueeze(1).unsqueeze(1)).squeeze(1).squeeze(1)
        return (x + y) * y


class InstanceNorm2dModel(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(num_features)

    def forward(self, x):
        return self.inorm(x)


class GemmSwishBiasGroupNorm(nn.Module):
    def __init__(self, in_features, out_features, num_groups, bias_shape):
        super().__init__()
        self.matmul = nn.Linear(in_features, out_features)
        self.bias = nn.Parameter(torch.randn(bias_shape))
        self.group_norm = nn.GroupNorm(num_groups, out_features)

    def forward(self, x):
        x = self.matmul(x)
        x = torch.sigmoid(x) * x
        x = x + self.bias
        return self.group_norm(x)


class GemmScaleBatchNorm(nn.Module):
    def __init__(self, in_features, out_features, scale_shape, eps=1e-5, momentum=0.1):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features)
        self.scale = nn.Parameter(torch.randn(scale_shape))
        self.bn = nn.BatchNorm1d(out_features, eps=eps, momentum=momentum)

    def forward(self, x):
        return self.bn(self.gemm(x) * self.scale)


class GemmBiasReLU(nn.Module):
    def __init__(self, in_features, out_features, bias_shape):
        super().__init__()
        self.gemm = nn.Linear(in_features, out_features, bias=False)
        self.bias = nn.Parameter(torch.randn(bias_shape))

    def forward(self, x):
        return torch.relu(self.gemm(x) + self.bias)


# name -> (class, init args, input shapes, (M, N, K) of the GEMM or None)
MODELS = {
    "GemmInstanceNormAddMul": (GemmInstanceNormAddMul, [8192, 8192], [[1024, 8192], [1024, 8192]],
                               (1024, 8192, 8192)),
    "InstanceNorm2dModel": (InstanceNorm2dModel, [64], [[112, 64, 512, 512]], None),
    "GemmSwishBiasGroupNorm": (GemmSwishBiasGroupNorm, [1024, 4096, 64, [4096]], [[32768, 1024]],
                               (32768, 4096, 1024)),
    "GemmScaleBatchNorm": (GemmScaleBatchNorm, [4096, 4096, [4096]], [[16384, 4096]],
                           (16384, 4096, 4096)),
    "GemmBiasReLU": (GemmBiasReLU, [8192, 8192, [8192]], [[1024, 8192]], (1024, 8192, 8192)),
}

_flush = None


def percentile(samples, q):
    """Linear interpolation between the closest ranks, as core/cuda/timing.cpp."""
    v = sorted(samples)
    pos = q * (len(v) - 1)
    lo, hi = int(pos), min(int(pos) + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)


def time_samples(fn, warmup=3, reps=20):
    """Every repetition's time in ms, timed as core/cuda/timing.cpp times ours."""
    global _flush
    if _flush is None:
        l2 = torch.cuda.get_device_properties(torch.cuda.current_device()).L2_cache_size
        _flush = torch.empty(max(2 * l2, 64 << 20), dtype=torch.uint8, device="cuda")
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    times = []
    for i in range(reps):
        _flush.fill_(i & 0xFF)  # evict inputs and weights from L2, as cudaMemsetAsync
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return times


def time_ms(fn, warmup=3, reps=20):
    times = time_samples(fn, warmup, reps)
    return percentile(times, 0.5), percentile(times, 0.1), percentile(times, 0.9)


def google_benchmark_json(device, records):
    """records: (name, samples_ms, flops, bytes); the schema of `tt bench --json`."""
    import datetime
    import platform
    import os
    import subprocess
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    context = {"date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
               "host_name": platform.node(), "executable": "bench_pytorch.py",
               "num_cpus": os.cpu_count(), "mhz_per_cpu": 0, "cpu_scaling_enabled": False,
               "caches": [], "load_avg": [], "library_build_type": "release",
               "device": device, "driver": "", "cuda_runtime": torch.version.cuda,
               "torch_version": torch.__version__, "git_commit": commit,
               "timing": "CUDA events per repetition, L2 flushed before each; times in ms"}
    benchmarks = []
    for family, (name, samples, flops, nbytes) in enumerate(records):
        def row(run_type, aggregate, ms):
            r = {"name": name + ("_" + aggregate if aggregate else ""), "family_index": family,
                 "per_family_instance_index": 0, "run_name": name, "run_type": run_type,
                 "repetitions": len(samples), "threads": 1, "iterations": 1,
                 "real_time": ms, "cpu_time": ms, "time_unit": "ms"}
            if aggregate:
                r["aggregate_name"] = aggregate
                r["aggregate_unit"] = "time"
            if aggregate != "stddev" and ms > 0:
                if flops:
                    r["TFLOP/s"] = flops / (ms * 1e-3) / 1e12
                if nbytes:
                    r["GB/s"] = nbytes / (ms * 1e-3) / 1e9
            return r
        benchmarks += [row("iteration", "", ms) for ms in samples]
        mean = statistics.mean(samples)
        benchmarks += [row("aggregate", "mean", mean),
                       row("aggregate", "median", percentile(samples, 0.5)),
                       row("aggregate", "stddev", statistics.stdev(samples) if len(samples) > 1 else 0.0),
                       row("aggregate", "min", min(samples)),
                       row("aggregate", "p10", percentile(samples, 0.1)),
                       row("aggregate", "p90", percentile(samples, 0.9))]
    return {"context": context, "benchmarks": benchmarks}


def ours_from_json(doc):
    """model -> {median_ms, p10_ms, p90_ms} of the tuned run in a `tt bench --json` file."""
    out = {}
    for r in doc.get("benchmarks", []):
        if r.get("run_type") != "aggregate" or r.get("configs", "tuned") != "tuned":
            continue
        key = {"median": "median_ms", "p10": "p10_ms", "p90": "p90_ms"}.get(r.get("aggregate_name"))
        if key:
            out.setdefault(r.get("model", r["run_name"].split("/")[0]), {})[key] = r["real_time"]
    return out


def ours_from_file(path):
    """ours_from_json of a `tt bench --json` file."""
    with open(path) as f:
        return ours_from_json(json.load(f))


def ours_by_mode(specs, ap):
    """mode -> ours_from_file(FILE) for --ours MODE=FILE arguments; `ap` reports a
    malformed one."""
    ours = {}
    for spec in specs:
        mode, _, path = spec.partition("=")
        if not path:
            ap.error(f"--ours takes MODE=FILE, got {spec!r}")
        ours[mode] = ours_from_file(path)
    return ours


def copy_bandwidth():
    src = torch.empty(512 * 1024 * 1024, dtype=torch.float32, device="cuda")  # 2 GiB
    dst = torch.empty_like(src)
    ms, _, _ = time_ms(lambda: dst.copy_(src), warmup=2, reps=10)
    return 2 * src.numel() * 4 / (ms * 1e-3)


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ours", help="JSON written by `tt bench --all --shape full --json`")
    ap.add_argument("--out", help="write the markdown table here (and .json beside it)")
    ap.add_argument("--models", nargs="*", default=list(MODELS))
    ap.add_argument("--no-compile", action="store_true")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--json", help="write every PyTorch timing here in Google Benchmark's JSON format")
    args = ap.parse_args()

    ours = ours_from_file(args.ours) if args.ours else {}

    dev = torch.cuda.get_device_name()
    bw = copy_bandwidth()
    print(f"device: {dev}; torch {torch.__version__}; copy bandwidth {bw / 1e12:.2f} TB/s", flush=True)
    rows = []
    records = []  # (name, samples, flops, bytes) for --json
    with torch.no_grad():
        for name in args.models:
            cls, init, shapes, gemm = MODELS[name]
            torch.manual_seed(0)
            model = cls(*init).cuda()
            inputs = [torch.rand(s, device="cuda") for s in shapes]
            eager_samples = time_samples(lambda: model(*inputs), reps=args.reps)
            eager = (percentile(eager_samples, 0.5), percentile(eager_samples, 0.1),
                     percentile(eager_samples, 0.9))
            comp = (float("nan"),) * 3
            if not args.no_compile:
                cmodel = torch.compile(model)
                comp_samples = time_samples(lambda: cmodel(*inputs), warmup=5, reps=args.reps)
                comp = (percentile(comp_samples, 0.5),)
                torch._dynamo.reset()
            gemm_ms = float("nan")
            flops = 0
            if gemm:
                m, n, k = gemm
                w = next(p for p in model.parameters() if p.dim() == 2)  # Linear weight [N, K]
                x = inputs[0]
                gemm_ms = time_ms(lambda: x @ w.t(), reps=args.reps)[0]
                flops = 2.0 * m * n * k
            nbytes = sum(t.numel() * 4 for t in inputs) + sum(p.numel() * 4 for p in model.parameters())
            out_bytes = model(*inputs).numel() * 4
            floor_ms = (nbytes + out_bytes) / bw * 1e3
            records.append((f"{name}/full/eager", eager_samples, flops, nbytes + out_bytes))
            if not args.no_compile:
                records.append((f"{name}/full/compile", comp_samples, flops, nbytes + out_bytes))
            row = {"model": name, "eager_ms": eager[0], "compile_ms": comp[0], "gemm_ms": gemm_ms,
                   "floor_ms": floor_ms, "gflop": flops / 1e9,
                   "ours_ms": ours.get(name, {}).get("median_ms", float("nan")),
                   "ours_p10": ours.get(name, {}).get("p10_ms", float("nan")),
                   "ours_p90": ours.get(name, {}).get("p90_ms", float("nan"))}
            rows.append(row)
            print(f"  {name}: eager {eager[0]:.3f} compile {comp[0]:.3f} gemm {gemm_ms:.3f} "
                  f"ours {row['ours_ms']:.3f}", flush=True)
            del model, inputs
            torch.cuda.empty_cache()

    lines = [f"Device: {dev}, torch {torch.__version__}, copy bandwidth {bw / 1e12:.2f} TB/s "
             "(read+write). Medians of CUDA-event timings, L2 flushed before each repetition, "
             "float32, TF32 off.", "",
             "| model | ours ms (p10-p90) | eager ms | compile ms | GEMM-only ms | memory floor ms "
             "| ours/eager | ours/compile | ours/GEMM | ours/floor |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        floor = r["gemm_ms"] if r["gemm_ms"] == r["gemm_ms"] else r["floor_ms"]
        lines.append(
            f"| {r['model']} | {r['ours_ms']:.3f} ({r['ours_p10']:.3f}-{r['ours_p90']:.3f}) | "
            f"{r['eager_ms']:.3f} | {r['compile_ms']:.3f} | {r['gemm_ms']:.3f} | {r['floor_ms']:.3f} | "
            f"{r['ours_ms'] / r['eager_ms']:.3f} | {r['ours_ms'] / r['compile_ms']:.3f} | "
            f"{r['ours_ms'] / r['gemm_ms']:.3f} | {r['ours_ms'] / r['floor_ms']:.2f} |")
    table = "\n".join(lines)
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write(table + "\n")
        with open(args.out.rsplit(".", 1)[0] + ".json", "w") as f:
            json.dump({"device": dev, "copy_bandwidth": bw, "rows": rows}, f, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(google_benchmark_json(dev, records), f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
