// bmm on CUDA: out[B, m, n] = a[B, m, k] b[B, k, n] as one strided batched cuBLASLt
// matmul, in the compute type of the calling thread's precision: strict and accurate
// CUBLAS_COMPUTE_32F, tf32 CUBLAS_COMPUTE_32F_FAST_TF32 (the heuristic list asked for
// that compute type). In tf32 and accurate, a product that is one GEMM of the GEMM
// family's layout (b shared by every batch, or one batch, as the transposed view of a
// K-contiguous [n, k] matrix: matmul(x, W.t()); a's rows K-contiguous and its batches
// consecutive) runs as that GEMM instead (kernel "matmul", X = a as [B*m, k], W = b^T):
// there the tc family's variants are in the space (accurate: its default on an sm_90 GPU
// where K % 4 == 0 and the operands are 16-byte aligned). Any other layout in accurate
// runs the strict batched path: the tc family has no batched form, and strict float32 is
// within accurate's bound. Strict runs exactly what it ran before the modes existed.
//
// Row-major to cuBLASLt's column-major: we ask for out^T [n, m] (ld n) =
// op(b) * op(a), where a row-major matrix with rows of unit stride is its own
// transpose in column-major (op N) and a matrix with columns of unit stride (a
// transposed view) is taken with op T; so transposed views and a batch stride of 0
// (a broadcast batch) run without copies. Only a matrix with neither unit stride (or
// with rows that overlap) is copied, and then only one matrix when its batch is
// broadcast. The matmul runs through the family's cuBLASLt wrapper
// (ops/cuda/gemm/cublaslt_gemm.h: X = a, W = b^T, each a row- or column-major view),
// which caches descriptors and cuBLASLt's heuristic list per layout.
//
// Tuning: kernel "bmm", one axis cublas_algo_index (the position in cuBLASLt's
// heuristic list, as the GEMM stages' algo); problem key
// "batch=B,m=M,n=N,k=K,layout=nt,bcast=a,align=16B,precision=strict" (the calling
// thread's precision) where layout
// gives op(a) op(b) (n: rows of unit stride, t: a transposed view) and bcast which
// operands have batch stride 0 (none, a, b, ab).
#include <algorithm>
#include <string>
#include <vector>

#include "autotune/problem_key.h"
#include "autotune/space_cache.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/cuda/gemm/cublaslt_gemm.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_space.h"

namespace tt::ops::cuda {
namespace {

constexpr int kAlgoCandidates = 8;  // as the GEMM stages' cublas algo axis

// One operand's matrices: row-major with leading dimension ld, or column-major (trans:
// a transposed view) with leading dimension ld, batch_stride elements apart.
struct LtOperand {
  Tensor keep;  // the tensor the pointer points into (a copy when one was needed)
  const float* ptr = nullptr;
  bool trans = false;
  int64_t ld = 0;
  int64_t batch_stride = 0;
};

// The [R, C] matrices of x [B, R, C] as they lie: row-major where a row's elements are
// adjacent, column-major (trans) where a column's are (a transposed view). Size-1 dims
// take whatever stride fits.
LtOperand as_operand(const Tensor& x) {
  const int64_t batch = x.size(0), r = x.size(1), c = x.size(2);
  int64_t sb = batch == 1 ? 0 : x.stride(0);
  int64_t sr = x.stride(1), sc = x.stride(2);
  if (c == 1) sc = 1;
  if (r == 1) sr = std::max<int64_t>(c, 1) * sc;
  LtOperand op;
  if (sc == 1 && sr >= c) {
    op = {x, x.data<float>(), false, std::max<int64_t>(sr, 1), sb};
  } else if (sr == 1 && sc >= r) {
    op = {x, x.data<float>(), true, std::max<int64_t>(sc, 1), sb};
  } else {
    // Neither unit stride (or overlapping rows): a dense copy, of one matrix when the
    // batch is broadcast.
    const Tensor dense = sb == 0 ? x.narrow(0, 0, 1).contiguous() : x.contiguous();
    op = {dense, dense.data<float>(), false, c, sb == 0 ? 0 : r * c};
  }
  if (r == 1 && c == 1) op.ld = 1;
  return op;
}

std::string problem_key(const gemm::LtProblem& p, const LtOperand& a, const LtOperand& b) {
  const std::string bcast = a.batch_stride == 0 && b.batch_stride == 0 && p.batch > 1 ? "ab"
                            : a.batch_stride == 0 && p.batch > 1                      ? "a"
                            : b.batch_stride == 0 && p.batch > 1                      ? "b"
                                                                                      : "none";
  return autotune::ProblemKey()
      .add("batch", p.batch)
      .add("m", p.m)
      .add("n", p.n)
      .add("k", p.k)
      .add("layout", std::string(a.trans ? "t" : "n") + (b.trans ? "t" : "n"))
      .add("bcast", bcast)
      .add("align", std::to_string(p.align_bytes) + "B")
      .add_precision(current_precision())
      .str();
}

// Whether the product is one GEMM of the GEMM family's layout: b^T a K-contiguous [n, k]
// matrix shared by every batch, a's rows K-contiguous with consecutive batches (X is
// then [batch * m, k]).
bool one_family_gemm(int64_t batch, int64_t m, int64_t k, const LtOperand& a, const LtOperand& b) {
  const bool a_rows = !a.trans && a.ld == k && (batch == 1 || a.batch_stride == m * k);
  const bool b_shared = b.trans && b.ld == k && (batch == 1 || b.batch_stride == 0);
  return a_rows && b_shared;
}

}  // namespace

Tensor bmm(const Tensor& a_in, const Tensor& b_in) {
  const int64_t batch = a_in.size(0), m = a_in.size(1), k = a_in.size(2), n = b_in.size(2);
  const Device dev = a_in.device();
  if (batch == 0 || m == 0 || n == 0) return Tensor::empty({batch, m, n}, DType::F32, dev);
  if (k == 0) return Tensor::zeros({batch, m, n}, DType::F32, dev);
  TT_CHECK(batch <= 0x7fffffff, "bmm: a batch of {} matrices exceeds cuBLASLt's int32 batch count",
           batch);
  const LtOperand a = as_operand(a_in), b = as_operand(b_in);
  Tensor out = Tensor::empty({batch, m, n}, DType::F32, dev);
  const int device = dev.index;
  tt::cuda::DeviceGuard guard(device);

  const Precision precision = current_precision();
  if (precision == Precision::accurate) gemm::note_accurate_fallback(device);
  if (precision != Precision::strict && one_family_gemm(batch, m, k, a, b)) {
    gemm::GemmArgs args;
    args.x = a.ptr;
    args.w = b.ptr;
    args.c = out.data<float>();
    args.m = batch * m;
    args.n = n;
    args.k = k;
    const gemm::GemmProblem p{args.m, n, k, gemm::pointer_align({args.x, args.w})};
    const gemm::GemmConfig cfg = gemm::choose_gemm(gemm::kMatmulStage, p, device);
    gemm::run_gemm(cfg, args, gemm::Epilogue{}, device, tt::cuda::stream(device));
    return out;
  }

  // X = a ([m, k] per batch), W = b^T ([n, k]): a transposed view of either is a
  // column-major matrix to cuBLASLt, read in place.
  gemm::LtProblem p;
  p.m = m;
  p.n = n;
  p.k = k;
  p.device = device;
  p.tf32 = precision == Precision::tf32;
  p.batch = batch;
  p.x_col_major = a.trans;
  p.ldx = a.ld;
  p.x_batch_stride = a.batch_stride;
  p.w_col_major = !b.trans;
  p.ldw = b.ld;
  p.w_batch_stride = b.batch_stride;
  p = gemm::with_pointer_alignment(p, a.ptr, b.ptr, out.data<float>());

  const std::string problem = problem_key(p, a, b);
  const auto algo_count = [&]() {
    return static_cast<int64_t>(gemm::heuristic_algorithms(p, kAlgoCandidates).size());
  };
  const autotune::Config cfg =
      autotune::choose(device, "bmm", problem, /*swept_first=*/false, [&](bool constrained) {
        autotune::ParamSpace space("bmm");
        std::vector<int64_t> indices;
        for (int i = 0; i < kAlgoCandidates; ++i) indices.push_back(i);
        space.axis("cublas_algo_index", indices);
        if (constrained) {
          const int64_t count = algo_count();
          space.constraint(
              fmt::format("cublas_algo_index must index cuBLASLt's heuristic list for the "
                          "problem on this device ({} algorithms)",
                          count),
              [count](const autotune::Config& c) { return c.get("cublas_algo_index") < count; });
        }
        space.set_default(autotune::Config({{"cublas_algo_index", 0}}));
        return space;
      });
  // A layout that shares the problem key with the tuned one but offers fewer
  // algorithms (another leading dimension) runs cuBLASLt's first choice.
  int64_t index = cfg.get("cublas_algo_index");
  if (index < 0 || index >= algo_count()) index = 0;
  gemm::cublaslt_gemm(p, a.ptr, b.ptr, nullptr, out.data<float>(), static_cast<int>(index));
  return out;
}

}  // namespace tt::ops::cuda
