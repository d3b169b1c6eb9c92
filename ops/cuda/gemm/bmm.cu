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
// broadcast. Descriptors and cuBLASLt's heuristic list are cached per layout.
//
// Tuning: kernel "bmm", one axis cublas_algo_index (the position in cuBLASLt's
// heuristic list, as the GEMM stages' algo); problem key
// "batch=B,m=M,n=N,k=K,layout=nt,bcast=a,align=16B,precision=strict" (the calling
// thread's precision) where layout
// gives op(a) op(b) (n: rows of unit stride, t: a transposed view) and bcast which
// operands have batch stride 0 (none, a, b, ab).
#include <cublasLt.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>
#include <vector>

#include "autotune/problem_key.h"
#include "autotune/space_cache.h"
#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"
#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/cuda/gemm/cublaslt_heuristics.h"
#include "ops/cuda/gemm/gemm.h"
#include "ops/cuda/gemm/gemm_space.h"

namespace tt::ops::cuda {
namespace {

constexpr int kAlgoCandidates = 8;  // as the GEMM stages' cublas algo axis

// One operand as cuBLASLt sees it: a column-major `rows x cols` matrix (ld) per batch.
struct LtOperand {
  Tensor keep;  // the tensor the pointer points into (a copy when one was needed)
  const float* ptr = nullptr;
  bool trans = false;  // op T
  int64_t rows = 0, cols = 0, ld = 0;
  int64_t batch_stride = 0;
};

// The row-major [R, C] matrices of x [B, R, C] as a cuBLASLt operand that supplies
// x^T in column-major form: rows of unit stride are x^T as is (op N), columns of unit
// stride are x in column-major (op T). Size-1 dims take whatever stride fits.
LtOperand as_operand(const Tensor& x) {
  const int64_t batch = x.size(0), r = x.size(1), c = x.size(2);
  int64_t sb = batch == 1 ? 0 : x.stride(0);
  int64_t sr = x.stride(1), sc = x.stride(2);
  if (c == 1) sc = 1;
  if (r == 1) sr = std::max<int64_t>(c, 1) * sc;
  LtOperand op;
  if (sc == 1 && sr >= c) {
    op = {x, x.data<float>(), false, c, r, std::max<int64_t>(sr, 1), sb};
  } else if (sr == 1 && sc >= r) {
    op = {x, x.data<float>(), true, r, c, std::max<int64_t>(sc, 1), sb};
  } else {
    // Neither unit stride (or overlapping rows): a dense copy, of one matrix when the
    // batch is broadcast.
    const Tensor dense = sb == 0 ? x.narrow(0, 0, 1).contiguous() : x.contiguous();
    op = {dense, dense.data<float>(), false, c, r, c, sb == 0 ? 0 : r * c};
  }
  if (r == 1 && c == 1) op.ld = 1;
  return op;
}

int align_bytes_of(const LtOperand& o) {
  // Every batch's matrix must have the alignment the algorithm is chosen for.
  const auto a = reinterpret_cast<uintptr_t>(o.ptr);
  int align = 256;
  while (align > 4 && (a % align != 0 || (o.batch_stride * 4) % align != 0)) align /= 2;
  return align;
}

struct PlanKey {
  int device;
  int64_t batch, m, n, k;
  bool ta, tb;
  int64_t lda, ldb, sa, sb;
  int align;
  bool tf32;  // CUBLAS_COMPUTE_32F_FAST_TF32
  bool operator<(const PlanKey& o) const {
    return std::tie(device, batch, m, n, k, ta, tb, lda, ldb, sa, sb, align, tf32) <
           std::tie(o.device, o.batch, o.m, o.n, o.k, o.ta, o.tb, o.lda, o.ldb, o.sa, o.sb, o.align,
                    o.tf32);
  }
};

struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, lc = nullptr;  // cuBLASLt's A (b), B (a), C
  std::vector<cublasLtMatmulHeuristicResult_t> algos;
};

// One cuBLASLt handle per device, a workspace per stream, plans per layout; created
// on first use and kept for the process (destroying them from static destructors
// races with the CUDA runtime's teardown).
struct State {
  std::mutex mutex;
  std::map<int, cublasLtHandle_t> handles;
  std::map<cudaStream_t, void*> workspaces;
  std::map<PlanKey, std::unique_ptr<Plan>> plans;
};

State& state() {
  static auto* s = new State;
  return *s;
}

void set_batch(cublasLtMatrixLayout_t layout, int64_t batch, int64_t stride) {
  const int32_t count = static_cast<int32_t>(batch);
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                   &count, sizeof(count)));
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
      layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
}

// The plan for `key` (caller holds the state's mutex).
Plan& plan_for(const PlanKey& key, const LtOperand& a, const LtOperand& b) {
  State& st = state();
  auto it = st.plans.find(key);
  if (it != st.plans.end()) return *it->second;
  auto& handle = st.handles[key.device];
  if (!handle) TT_CUBLAS_CHECK(cublasLtCreate(&handle));
  auto plan = std::make_unique<Plan>();
  const cublasComputeType_t compute = key.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  TT_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->desc, compute, CUDA_R_32F));
  // cuBLASLt's A is our b (supplying b^T, n x k), its B our a (supplying a^T, k x m).
  const cublasOperation_t op_a = b.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_b = a.trans ? CUBLAS_OP_T : CUBLAS_OP_N;
  TT_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &op_a, sizeof(op_a)));
  TT_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &op_b, sizeof(op_b)));
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->la, CUDA_R_32F, u(b.rows), u(b.cols), b.ld));
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->lb, CUDA_R_32F, u(a.rows), u(a.cols), a.ld));
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->lc, CUDA_R_32F, u(key.n), u(key.m), key.n));
  set_batch(plan->la, key.batch, b.batch_stride);
  set_batch(plan->lb, key.batch, a.batch_stride);
  set_batch(plan->lc, key.batch, key.m * key.n);

  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  plan->algos = gemm::lt_heuristics(handle, plan->desc, plan->la, plan->lb, plan->lc,
                                    static_cast<uint32_t>(key.align), kAlgoCandidates, &status);
  TT_CHECK(!plan->algos.empty(),
           "bmm: cuBLASLt has no {} algorithm for batch={} m={} n={} k={} ({})",
           key.tf32 ? "FAST_TF32" : "float32", key.batch, key.m, key.n, key.k,
           cublasGetStatusString(status));
  return *st.plans.emplace(key, std::move(plan)).first->second;
}

std::string problem_key(const PlanKey& key, const LtOperand& a, const LtOperand& b) {
  const std::string bcast = a.batch_stride == 0 && b.batch_stride == 0 && key.batch > 1 ? "ab"
                            : a.batch_stride == 0 && key.batch > 1                      ? "a"
                            : b.batch_stride == 0 && key.batch > 1                      ? "b"
                                                                                        : "none";
  return autotune::ProblemKey()
      .add("batch", key.batch)
      .add("m", key.m)
      .add("n", key.n)
      .add("k", key.k)
      .add("layout", std::string(a.trans ? "t" : "n") + (b.trans ? "t" : "n"))
      .add("bcast", bcast)
      .add("align", std::to_string(key.align) + "B")
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

  PlanKey key{device,
              batch,
              m,
              n,
              k,
              a.trans,
              b.trans,
              a.ld,
              b.ld,
              a.batch_stride,
              b.batch_stride,
              0,
              precision == Precision::tf32};
  key.align = std::min(align_bytes_of(a), align_bytes_of(b));
  const auto out_ptr = reinterpret_cast<uintptr_t>(out.data<float>());
  while (key.align > 4 && (out_ptr % key.align != 0 || (m * n * 4) % key.align != 0))
    key.align /= 2;

  const std::string problem = problem_key(key, a, b);
  const auto algo_count = [&]() {
    std::lock_guard<std::mutex> lock(state().mutex);
    return static_cast<int64_t>(plan_for(key, a, b).algos.size());
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

  std::lock_guard<std::mutex> lock(state().mutex);
  State& st = state();
  Plan& plan = plan_for(key, a, b);
  // A layout that shares the problem key with the tuned one but offers fewer
  // algorithms (another leading dimension) runs cuBLASLt's first choice.
  int64_t index = cfg.get("cublas_algo_index");
  if (index < 0 || index >= static_cast<int64_t>(plan.algos.size())) index = 0;
  const cudaStream_t stream = tt::cuda::stream(device);
  void*& workspace = st.workspaces[stream];
  // A plain cudaMalloc, not the caching allocator: it lives as long as the process.
  if (workspace == nullptr) TT_CUDA_CHECK(cudaMalloc(&workspace, gemm::kLtWorkspaceBytes));
  const float alpha = 1.f, beta = 0.f;
  TT_CUBLAS_CHECK(cublasLtMatmul(st.handles[device], plan.desc, &alpha, b.ptr, plan.la, a.ptr,
                                 plan.lb, &beta, out.data<float>(), plan.lc, out.data<float>(),
                                 plan.lc, &plan.algos[index].algo, workspace,
                                 gemm::kLtWorkspaceBytes, stream));
  return out;
}

}  // namespace tt::ops::cuda
