// The strict attention kernels alone (simt and simt2: ops/cuda/attention/attention_kernels.cuh,
// attention_simt2.cuh), built with nvcc into one static binary that needs only the CUDA
// driver. First every variant against a float64 CPU reference at awkward shapes (L, S
// off the tiles both ways, causal with L != S, additive and boolean masks with a fully
// masked row, strided heads of a [B, T, 3, H, E] projection written into the merged
// heads' layout, head dims 32/64/128), the output poisoned with NaN before each run;
// then each variant timed at the issue's shapes (median of 10 launches, each after a
// 256 MB L2 flush, CUDA events), its error on two (batch, head) slices against float64.
// Build here, run there:
//   nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a -I. -Xcompiler=-fopenmp \
//     tools/device/attention_simt_bench.cu -o attention_simt_bench -lgomp
// Usage: attention_simt_bench [--check-only [NAME]]   (--check-only: the small cases, e.g.
// under compute-sanitizer; NAME: only the variants whose name contains it). Rows:
// CHK,<case>,<variant>,<rel_err>,ok|FAIL and SB,<shape>,<variant>,<ms>,<tflops>,<rel_err>.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "ops/cuda/attention/attention_simt2.cuh"
#include "ops/cuda/attention/attention_variants.h"
#include "tools/device/standalone_check.cuh"

using namespace tt::ops;
using namespace tt::ops::cuda::attention;

namespace {

int64_t batch_count(const AttentionProblem& p) { return p.batch_count(); }

template <int E, int TM>
void run_simt(const KernelArgs& a) {
  const auto k = attention_simt_kernel<E, TM>;
  const int bm = 16 * TM;
  const size_t smem = (E * bm + 2 * E * 64 + 64 * bm) * 4;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  k<<<dim3(unsigned((a.p.L + bm - 1) / bm), unsigned(batch_count(a.p))), 256, smem>>>(a);
  CK(cudaGetLastError());
}

template <int E, int W, int TM, int BN, int MINB = simt2_min_blocks(E, W, TM, BN), int QKU = 4,
          bool MLS = simt2_mls(E, W, TM, BN), bool KDB = simt2_kdb(E, W, TM, BN)>
void run_simt2(const KernelArgs& a) {
  const auto k = a.mask ? attention_simt2_kernel<E, W, TM, BN, true, MINB, QKU, MLS, KDB>
                        : attention_simt2_kernel<E, W, TM, BN, false, MINB, QKU, MLS, KDB>;
  const int bm = 2 * W * TM;
  const size_t smem = size_t(simt2_smem_floats(E, W, TM, BN, KDB)) * 4;
  CK(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem)));
  k<<<query_tile_grid(a.p, bm), 32 * W, smem>>>(a);
  CK(cudaGetLastError());
}

struct Variant {
  int E;
  std::string name;
  std::function<void(const KernelArgs&)> run;
};

std::vector<Variant> all_variants() {
  std::vector<Variant> v;
  for (int tm : {4, 8}) {
    const std::string n = "simt rows=" + std::to_string(tm);
    v.push_back({32, n, tm == 4 ? run_simt<32, 4> : run_simt<32, 8>});
    v.push_back({64, n, tm == 4 ? run_simt<64, 4> : run_simt<64, 8>});
    v.push_back({128, n, tm == 4 ? run_simt<128, 4> : run_simt<128, 8>});
  }
#define TT_X(E, W, TM, BN) \
  v.push_back({E, "simt2 w" #W " rows=" #TM " bn" #BN, run_simt2<E, W, TM, BN>});
  TT_ATTN_SIMT2_VARIANTS(TT_X)
#undef TT_X
  // Register caps other than the launch bounds' default (simt2_min_blocks).
  // The library's variants above take their own options (attention_simt2.h: K
  // double-buffered at head dim 64 with 4 warps of 8 rows, the softmax state in shared
  // memory at 128 with 8 warps of 8 rows). Others, every option spelled out: register
  // caps (MINB), the unroll of Q K^T's loop (QKU), the softmax state in shared memory
  // (MLS), K double-buffered (KDB). ptxas, E64 unmasked: 8 warps of 8 rows at 2 blocks
  // spill 168 bytes (MLS: 72; MLS and QKU 16: 40); 4 warps at 2 blocks take 242-246
  // registers, at 3 blocks 168 and spill 92 (MLS: 32).
  v.push_back({64, "simt2 w8 rows=8 bn64 minb1", run_simt2<64, 8, 8, 64, 1, 4, false, false>});
  v.push_back({64, "simt2 w8 rows=8 bn64 mls", run_simt2<64, 8, 8, 64, 2, 4, true, false>});
  v.push_back({64, "simt2 w8 rows=8 bn64 mls qku16", run_simt2<64, 8, 8, 64, 2, 16, true, false>});
  v.push_back({64, "simt2 w4 rows=8 bn64 plain", run_simt2<64, 4, 8, 64, 2, 4, false, false>});
  v.push_back({64, "simt2 w4 rows=8 bn64 mls", run_simt2<64, 4, 8, 64, 2, 4, true, false>});
  v.push_back({64, "simt2 w4 rows=8 bn64 qku16", run_simt2<64, 4, 8, 64, 2, 16, false, false>});
  v.push_back({64, "simt2 w4 rows=8 bn64 minb3", run_simt2<64, 4, 8, 64, 3, 4, false, false>});
  v.push_back(
      {64, "simt2 w4 rows=8 bn64 minb3 mls qku16", run_simt2<64, 4, 8, 64, 3, 16, true, false>});
  v.push_back({64, "simt2 w4 rows=8 bn64 kdb mls", run_simt2<64, 4, 8, 64, 2, 4, true, true>});
  v.push_back({32, "simt2 w4 rows=8 bn64 kdb mls", run_simt2<32, 4, 8, 64, 2, 4, true, true>});
  v.push_back({32, "simt2 w8 rows=8 bn64 mls", run_simt2<32, 8, 8, 64, 2, 4, true, false>});
  v.push_back({128, "simt2 w8 rows=8 bn64 plain", run_simt2<128, 8, 8, 64, 1, 4, false, false>});
  v.push_back({128, "simt2 w8 rows=4 bn64 kdb mls", run_simt2<128, 8, 4, 64, 1, 4, true, true>});
  return v;
}

// One operand on the host and the device, with its strides in the problem.
struct Buf {
  std::vector<float> h;
  float* d = nullptr;
};

// softmax(q k^T * scale + mask) v of batch b, in double, into out (the problem's layout).
void reference(const AttentionProblem& p, const float* q, const float* k, const float* v,
               const void* mask, int64_t b, std::vector<double>& out) {
  const int64_t qo = AttentionProblem::batch_offset(p, p.q, b),
                ko = AttentionProblem::batch_offset(p, p.k, b),
                vo = AttentionProblem::batch_offset(p, p.v, b),
                mo = AttentionProblem::batch_offset(p, p.mask, b);
  out.assign(size_t(p.L * p.Ev), 0.0);
#pragma omp parallel for schedule(dynamic, 16)
  for (int64_t i = 0; i < p.L; ++i) {
    std::vector<double> s(size_t(p.S));
    double mx = -INFINITY;
    for (int64_t j = 0; j < p.S; ++j) {
      double d = 0;
      for (int64_t e = 0; e < p.E; ++e)
        d += double(q[qo + i * p.q.row + e * p.q.col]) * double(k[ko + j * p.k.row + e * p.k.col]);
      d *= p.scale;
      if (p.causal && j > i) d = -INFINITY;
      const int64_t mi = mo + i * p.mask.row + j * p.mask.col;
      if (p.mask_kind == AttnMask::kAdditive) d += static_cast<const float*>(mask)[mi];
      if (p.mask_kind == AttnMask::kBoolean && !static_cast<const uint8_t*>(mask)[mi])
        d = -INFINITY;
      s[size_t(j)] = d;
      mx = std::max(mx, d);
    }
    if (mx == -INFINITY) continue;  // nothing attended: zeros, as PyTorch's safe softmax
    double sum = 0;
    for (int64_t j = 0; j < p.S; ++j) sum += (s[size_t(j)] = std::exp(s[size_t(j)] - mx));
    for (int64_t e = 0; e < p.Ev; ++e) {
      double acc = 0;
      for (int64_t j = 0; j < p.S; ++j) acc += s[size_t(j)] * double(v[vo + j * p.v.row + e]);
      out[size_t(i * p.Ev + e)] = acc / sum;
    }
  }
}

struct Case {
  std::string name;
  int64_t B, H, L, S, E;
  bool causal;
  int mask;      // 0 none, 1 additive [L, S], 2 boolean [B, 1, L, S] with row 3 masked
  bool strided;  // q/k/v heads of a [B, T, 3, H, E] projection, out [B, T, H, E] (L == S)
};

// Builds the problem and its buffers; fills q/k/v (and the mask) with fresh values.
struct Setup {
  AttentionProblem p;
  Buf q, k, v, out;
  std::vector<float> mask_f;
  std::vector<uint8_t> mask_b;
  void* mask_d = nullptr;
  float* qkv_d = nullptr;
  std::vector<float> qkv_h;

  Setup(const Case& c, std::mt19937& gen) {
    std::normal_distribution<float> nd;
    p.batch_rank = 2;
    p.batch[0] = c.B;
    p.batch[1] = c.H;
    p.L = c.L;
    p.S = c.S;
    p.E = p.Ev = c.E;
    p.causal = c.causal;
    p.scale = 1.0 / std::sqrt(double(c.E));
    const auto dense = [&](AttnStrides& s, int64_t rows) {
      s.batch[0] = c.H * rows * c.E;
      s.batch[1] = rows * c.E;
      s.row = c.E;
      s.col = 1;
    };
    if (c.strided) {
      // [B, T, 3, H, E]: head h of q at (t, 0, h); out [B, T, H, E].
      const int64_t T = c.L;
      qkv_h.resize(size_t(c.B * T * 3 * c.H * c.E));
      for (float& x : qkv_h) x = nd(gen);
      CK(cudaMalloc(&qkv_d, qkv_h.size() * 4));
      CK(cudaMemcpy(qkv_d, qkv_h.data(), qkv_h.size() * 4, cudaMemcpyHostToDevice));
      for (AttnStrides* s : {&p.q, &p.k, &p.v}) {
        s->batch[0] = T * 3 * c.H * c.E;
        s->batch[1] = c.E;
        s->row = 3 * c.H * c.E;
        s->col = 1;
      }
      p.out.batch[0] = T * c.H * c.E;
      p.out.batch[1] = c.E;
      p.out.row = c.H * c.E;
      p.out.col = 1;
    } else {
      dense(p.q, c.L);
      dense(p.k, c.S);
      dense(p.v, c.S);
      dense(p.out, c.L);
      for (Buf* b : {&q, &k, &v}) {
        const int64_t rows = b == &q ? c.L : c.S;
        b->h.resize(size_t(c.B * c.H * rows * c.E));
        for (float& x : b->h) x = nd(gen);
        CK(cudaMalloc(&b->d, b->h.size() * 4));
        CK(cudaMemcpy(b->d, b->h.data(), b->h.size() * 4, cudaMemcpyHostToDevice));
      }
    }
    out.h.resize(size_t(c.B * c.H * c.L * c.E));
    CK(cudaMalloc(&out.d, out.h.size() * 4));
    if (c.mask == 1) {
      p.mask_kind = AttnMask::kAdditive;
      p.mask.row = c.S;
      p.mask.col = 1;
      mask_f.resize(size_t(c.L * c.S));
      for (float& x : mask_f) x = nd(gen);
      CK(cudaMalloc(&mask_d, mask_f.size() * 4));
      CK(cudaMemcpy(mask_d, mask_f.data(), mask_f.size() * 4, cudaMemcpyHostToDevice));
    } else if (c.mask == 2) {
      p.mask_kind = AttnMask::kBoolean;
      p.mask.batch[0] = c.L * c.S;
      p.mask.row = c.S;
      p.mask.col = 1;
      std::uniform_real_distribution<float> ud;
      mask_b.resize(size_t(c.B * c.L * c.S));
      for (uint8_t& x : mask_b) x = ud(gen) < 0.7f;
      for (int64_t b = 0; b < c.B; ++b)
        for (int64_t j = 0; j < c.S; ++j) mask_b[size_t(b * c.L * c.S + 3 * c.S + j)] = 0;
      CK(cudaMalloc(&mask_d, mask_b.size()));
      CK(cudaMemcpy(mask_d, mask_b.data(), mask_b.size(), cudaMemcpyHostToDevice));
    }
  }
  ~Setup() {
    for (void* x : {(void*)q.d, (void*)k.d, (void*)v.d, (void*)out.d, mask_d, (void*)qkv_d})
      if (x) cudaFree(x);
  }
  KernelArgs args() const {
    const float* base = qkv_d;
    const int64_t HE = p.batch[1] * p.E;
    return {p,     base ? base : q.d, base ? base + HE : k.d, base ? base + 2 * HE : v.d, mask_d,
            out.d, float(p.scale)};
  }
  const float* hq() const { return qkv_d ? qkv_h.data() : q.h.data(); }
  const float* hk() const { return qkv_d ? qkv_h.data() + p.batch[1] * p.E : k.h.data(); }
  const float* hv() const { return qkv_d ? qkv_h.data() + 2 * p.batch[1] * p.E : v.h.data(); }
  const void* hmask() const {
    return p.mask_kind == AttnMask::kAdditive  ? (const void*)mask_f.data()
           : p.mask_kind == AttnMask::kBoolean ? (const void*)mask_b.data()
                                               : nullptr;
  }
  // Relative L2 error of the device output over batches `bs`; false if any element of
  // them is not finite.
  double error(const std::vector<int64_t>& bs, bool& finite) {
    CK(cudaMemcpy(out.h.data(), out.d, out.h.size() * 4, cudaMemcpyDeviceToHost));
    double num = 0, den = 0;
    finite = true;
    std::vector<double> want;
    for (int64_t b : bs) {
      reference(p, hq(), hk(), hv(), hmask(), b, want);
      const int64_t oo = AttentionProblem::batch_offset(p, p.out, b);
      for (int64_t i = 0; i < p.L; ++i) {
        for (int64_t e = 0; e < p.Ev; ++e) {
          const double g = out.h[size_t(oo + i * p.out.row + e)], w = want[size_t(i * p.Ev + e)];
          finite = finite && std::isfinite(g);
          num += (g - w) * (g - w);
          den += w * w;
        }
      }
    }
    return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
  }
};

}  // namespace

int main(int argc, char** argv) {
  const bool check_only = argc > 1 && std::strcmp(argv[1], "--check-only") == 0;
  const std::string only = argc > 2 ? argv[2] : "";
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("GPU %s\n", prop.name);
  const std::vector<Variant> variants = all_variants();
  std::mt19937 gen(11);
  int failures = 0;
  const std::vector<Case> checks = {
      {"B2 H3 L77 S77 E64", 2, 3, 77, 77, 64, false, 0, false},
      {"B1 H2 L130 S67 E64 causal", 1, 2, 130, 67, 64, true, 0, false},
      {"B1 H2 L67 S130 E64 causal", 1, 2, 67, 130, 64, true, 0, false},
      {"B2 H2 L100 S200 E32 add-mask", 2, 2, 100, 200, 32, false, 1, false},
      {"B1 H3 L129 S129 E128 causal", 1, 3, 129, 129, 128, true, 0, false},
      {"B2 H1 L65 S191 E128 bool-mask", 2, 1, 65, 191, 128, false, 2, false},
      {"B2 H2 L70 S150 E64 bool-mask", 2, 2, 70, 150, 64, false, 2, false},
      {"B1 H1 L1 S1 E64", 1, 1, 1, 1, 64, false, 0, false},
      {"B2 H4 L256 S256 E64 causal", 2, 4, 256, 256, 64, true, 0, false},
      {"B2 H4 T300 E64 qkv-strided causal", 2, 4, 300, 300, 64, true, 0, true},
      {"B1 H2 T200 E64 qkv-strided", 1, 2, 200, 200, 64, false, 0, true},
      {"B1 H2 T333 E32 qkv-strided", 1, 2, 333, 333, 32, false, 0, true},
      {"B1 H2 T150 E128 qkv-strided causal", 1, 2, 150, 150, 128, true, 0, true},
  };
  for (const Case& c : checks) {
    Setup s(c, gen);
    std::vector<int64_t> all;
    for (int64_t b = 0; b < c.B * c.H; ++b) all.push_back(b);
    for (const Variant& v : variants) {
      if (v.E != c.E || v.name.find(only) == std::string::npos) continue;
      CK(cudaMemset(s.out.d, 0xff, s.out.h.size() * 4));  // NaN: every element must be written
      v.run(s.args());
      CK(cudaDeviceSynchronize());
      bool finite = true;
      const double err = s.error(all, finite);
      // Row 3 of a boolean-masked case attends nothing: exactly zero.
      bool zero_row = true;
      if (c.mask == 2) {
        for (int64_t e = 0; e < c.E; ++e)
          zero_row = zero_row && s.out.h[size_t(3 * c.E + e)] == 0.f;
      }
      const bool ok = finite && err <= 1e-6 && zero_row;
      failures += !ok;
      std::printf("CHK,%s,%s,%.2e,%s\n", c.name.c_str(), v.name.c_str(), err, ok ? "ok" : "FAIL");
    }
  }
  std::printf("checks: %d failure(s)\n", failures);
  if (check_only) return failures ? 1 : 0;

  char* flush = nullptr;
  CK(cudaMalloc(&flush, 256 << 20));
  const std::vector<Case> shapes = {
      {"B8 H16 T1024 E64", 8, 16, 1024, 1024, 64, false, 0, false},
      {"B8 H16 T1024 E64 qkv-strided", 8, 16, 1024, 1024, 64, false, 0, true},
      {"B8 H16 T1024 E64 causal", 8, 16, 1024, 1024, 64, true, 0, false},
      {"B2 H16 T4096 E64", 2, 16, 4096, 4096, 64, false, 0, false},
      {"B2 H16 T4096 E64 causal", 2, 16, 4096, 4096, 64, true, 0, false},
      {"B8 H16 T1024 E128", 8, 16, 1024, 1024, 128, false, 0, false},
      {"B8 H16 T1024 E128 causal", 8, 16, 1024, 1024, 128, true, 0, false},
      {"B8 H16 T1024 E32", 8, 16, 1024, 1024, 32, false, 0, false},
  };
  for (const Case& c : shapes) {
    Setup s(c, gen);
    const double flops = 4.0 * c.B * c.H * c.L * c.S * c.E * (c.causal ? 0.5 : 1.0);
    for (const Variant& v : variants) {
      if (v.E != c.E) continue;
      CK(cudaMemset(s.out.d, 0xff, s.out.h.size() * 4));
      v.run(s.args());
      CK(cudaDeviceSynchronize());
      bool finite = true;
      const double err = s.error({0, c.B * c.H - 1}, finite);
      const float ms = median_of_10_ms([&] { v.run(s.args()); }, [] {}, flush);
      std::printf("SB,%s,%s,%.4f,%.1f,%.2e%s\n", c.name.c_str(), v.name.c_str(), ms,
                  flops / ms / 1e9, err, finite ? "" : ",NOT FINITE");
      std::fflush(stdout);
    }
  }
  return failures ? 1 : 0;
}
