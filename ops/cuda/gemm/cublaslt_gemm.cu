// cuBLASLt in strict float32 (or FAST_TF32 when the problem asks) over row-major or
// strided, batched views, with cached descriptors and a workspace per stream.
#include "ops/cuda/gemm/cublaslt_gemm.h"

#include <cublasLt.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>
#include <tuple>

#include "core/cuda/check.h"
#include "core/cuda/runtime.h"
#include "core/cuda/stream.h"
#include "core/error.h"

namespace tt::ops::cuda::gemm {

bool LtProblem::operator<(const LtProblem& o) const {
  return std::tie(m, n, k, epilogue, device, align_bytes, tf32, batch, x_col_major, w_col_major,
                  ldx, ldw, x_batch_stride, w_batch_stride) <
         std::tie(o.m, o.n, o.k, o.epilogue, o.device, o.align_bytes, o.tf32, o.batch,
                  o.x_col_major, o.w_col_major, o.ldx, o.ldw, o.x_batch_stride, o.w_batch_stride);
}

namespace {

constexpr int kHeuristicsRequested = 16;

// Descriptors and heuristic list of one problem; created once, never destroyed
// (process lifetime, like the handle).
struct Plan {
  cublasLtMatmulDesc_t desc = nullptr;
  cublasLtMatrixLayout_t a = nullptr, b = nullptr, c = nullptr;
  std::vector<cublasLtMatmulHeuristicResult_t> algos;
};

struct DeviceState {
  cublasLtHandle_t handle = nullptr;
  // One workspace per stream that has run a GEMM: a plan's tail split runs GEMMs on
  // two side streams at once, and two running GEMMs must not share a workspace.
  std::map<cudaStream_t, void*> workspaces;
  std::mutex mutex;  // guards plans and the bias attribute between set and launch
  std::map<LtProblem, std::unique_ptr<Plan>> plans;
};

DeviceState& state(int device) {
  tt::cuda::check_device(device);
  // Leaked on purpose: destroying handles and freeing memory from static destructors
  // races with the CUDA runtime's own teardown at exit.
  static std::mutex mutex;
  static auto* states = new std::vector<std::unique_ptr<DeviceState>>(tt::cuda::device_count());
  std::lock_guard<std::mutex> lock(mutex);
  auto& s = (*states)[device];
  if (!s) {
    tt::cuda::DeviceGuard guard(device);
    auto fresh = std::make_unique<DeviceState>();
    TT_CUBLAS_CHECK(cublasLtCreate(&fresh->handle));
    s = std::move(fresh);
  }
  return *s;
}

cublasLtEpilogue_t lt_epilogue(LtEpilogue e) {
  switch (e) {
    case LtEpilogue::kBias:
      return CUBLASLT_EPILOGUE_BIAS;
    case LtEpilogue::kReluBias:
      return CUBLASLT_EPILOGUE_RELU_BIAS;
    case LtEpilogue::kDefault:
      break;
  }
  return CUBLASLT_EPILOGUE_DEFAULT;
}

// The alignment in bytes (4 to 256) of p and of every batch's matrix after it.
int align_of(const void* p, int64_t batch_stride) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  const auto step = static_cast<uintptr_t>(batch_stride) * sizeof(float);
  int align = 256;
  while (align > 4 && (a % align != 0 || step % align != 0)) align /= 2;
  return align;
}

// cuBLASLt's heuristic list (at most max_algos, best guess first) for `desc` over the
// layouts a, b and c (c is also the output layout), allowing kLtWorkspaceBytes and
// requiring no more than `align_bytes` of any operand. Empty when cuBLASLt offers
// nothing; `status` receives its answer for the caller's message.
std::vector<cublasLtMatmulHeuristicResult_t> lt_heuristics(
    cublasLtHandle_t handle, cublasLtMatmulDesc_t desc, cublasLtMatrixLayout_t a,
    cublasLtMatrixLayout_t b, cublasLtMatrixLayout_t c, uint32_t align_bytes, int max_algos,
    cublasStatus_t* status) {
  cublasLtMatmulPreference_t pref = nullptr;
  TT_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const uint64_t ws = kLtWorkspaceBytes;
  TT_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
      pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof(ws)));
  for (auto attr :
       {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES,
        CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES}) {
    TT_CUBLAS_CHECK(
        cublasLtMatmulPreferenceSetAttribute(pref, attr, &align_bytes, sizeof(align_bytes)));
  }
  std::vector<cublasLtMatmulHeuristicResult_t> algos(static_cast<size_t>(max_algos));
  int found = 0;
  *status = cublasLtMatmulAlgoGetHeuristic(handle, desc, a, b, c, c, pref, max_algos, algos.data(),
                                           &found);
  cublasLtMatmulPreferenceDestroy(pref);
  algos.resize(*status == CUBLAS_STATUS_SUCCESS ? static_cast<size_t>(found) : 0);
  return algos;
}

void set_batch(cublasLtMatrixLayout_t layout, int64_t batch, int64_t stride) {
  const int32_t count = static_cast<int32_t>(batch);
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT,
                                                   &count, sizeof(count)));
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutSetAttribute(
      layout, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof(stride)));
}

// The plan for p, built on first use. Caller holds the device mutex.
Plan& plan_for(DeviceState& st, const LtProblem& p) {
  auto it = st.plans.find(p);
  if (it != st.plans.end()) return *it->second;
  TT_CHECK(p.m > 0 && p.n > 0 && p.k > 0, "cublaslt_gemm: sizes must be positive but are {}x{}x{}",
           p.m, p.n, p.k);
  TT_CHECK(p.batch >= 1 && p.batch <= 0x7fffffff,
           "cublaslt_gemm: the batch count must be from 1 to 2^31 - 1 (cuBLASLt's int32), got {}",
           p.batch);
  auto plan = std::make_unique<Plan>();
  // Strict float32: products and sums in IEEE float32 on the FMA units; tf32: operands
  // rounded to TF32 on the tensor cores, float32 accumulation. The heuristic below is
  // asked for this compute type.
  const cublasComputeType_t compute = p.tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  TT_CUBLAS_CHECK(cublasLtMatmulDescCreate(&plan->desc, compute, CUDA_R_32F));
  // cuBLASLt's A supplies W (N x K): a row-major W is a col-major K x N, taken with op T.
  // Its B supplies X^T (K x M): a row-major X is a col-major K x M as it is (op N).
  const cublasOperation_t trans_a = p.w_col_major ? CUBLAS_OP_N : CUBLAS_OP_T;
  const cublasOperation_t trans_b = p.x_col_major ? CUBLAS_OP_T : CUBLAS_OP_N;
  TT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSA, &trans_a,
                                                 sizeof(trans_a)));
  TT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_TRANSB, &trans_b,
                                                 sizeof(trans_b)));
  const cublasLtEpilogue_t epi = lt_epilogue(p.epilogue);
  TT_CUBLAS_CHECK(
      cublasLtMatmulDescSetAttribute(plan->desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof(epi)));
  const auto u = [](int64_t v) { return static_cast<uint64_t>(v); };
  const int64_t ldw = p.ldw > 0 ? p.ldw : p.k, ldx = p.ldx > 0 ? p.ldx : p.k;
  TT_CUBLAS_CHECK(p.w_col_major
                      ? cublasLtMatrixLayoutCreate(&plan->a, CUDA_R_32F, u(p.n), u(p.k), ldw)
                      : cublasLtMatrixLayoutCreate(&plan->a, CUDA_R_32F, u(p.k), u(p.n), ldw));
  TT_CUBLAS_CHECK(p.x_col_major
                      ? cublasLtMatrixLayoutCreate(&plan->b, CUDA_R_32F, u(p.m), u(p.k), ldx)
                      : cublasLtMatrixLayoutCreate(&plan->b, CUDA_R_32F, u(p.k), u(p.m), ldx));
  // C^T is N x M (ld N).
  TT_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&plan->c, CUDA_R_32F, u(p.n), u(p.m), p.n));
  if (p.batch > 1) {
    set_batch(plan->a, p.batch, p.w_batch_stride);
    set_batch(plan->b, p.batch, p.x_batch_stride);
    set_batch(plan->c, p.batch, p.m * p.n);
  }

  cublasStatus_t status = CUBLAS_STATUS_SUCCESS;
  plan->algos = lt_heuristics(st.handle, plan->desc, plan->a, plan->b, plan->c,
                              static_cast<uint32_t>(p.align_bytes), kHeuristicsRequested, &status);
  TT_CHECK(!plan->algos.empty(),
           "cublaslt_gemm: cuBLASLt has no {} algorithm for m={} n={} k={} with epilogue "
           "{} and {}-byte alignment ({})",
           p.tf32 ? "FAST_TF32" : "float32", p.m, p.n, p.k, static_cast<int>(p.epilogue),
           p.align_bytes, cublasGetStatusString(status));
  return *st.plans.emplace(p, std::move(plan)).first->second;
}

}  // namespace

std::vector<LtAlgorithm> heuristic_algorithms(const LtProblem& p, int max_n) {
  DeviceState& st = state(p.device);
  std::lock_guard<std::mutex> lock(st.mutex);
  tt::cuda::DeviceGuard guard(p.device);
  const Plan& plan = plan_for(st, p);
  std::vector<LtAlgorithm> out;
  for (int i = 0; i < static_cast<int>(plan.algos.size()) && i < max_n; ++i) {
    out.push_back({i, plan.algos[i].workspaceSize, plan.algos[i].wavesCount});
  }
  return out;
}

LtProblem with_pointer_alignment(LtProblem p, const float* x, const float* w, const float* c,
                                 const float* residual) {
  const bool batched = p.batch > 1;
  p.align_bytes =
      std::min({p.align_bytes, align_of(x, batched ? p.x_batch_stride : 0),
                align_of(w, batched ? p.w_batch_stride : 0), align_of(c, batched ? p.m * p.n : 0),
                align_of(residual ? residual : c, batched ? p.m * p.n : 0)});
  return p;
}

void cublaslt_gemm_on(const LtProblem& problem, const float* x, const float* w, const float* bias,
                      float* c, int algo_index, cudaStream_t stream, const float* residual) {
  if (problem.m == 0 || problem.n == 0) return;
  const bool has_bias = problem.epilogue != LtEpilogue::kDefault;
  TT_CHECK(!has_bias || bias != nullptr, "cublaslt_gemm: the bias epilogue needs a bias vector");
  const LtProblem p = with_pointer_alignment(problem, x, w, c, residual);
  DeviceState& st = state(p.device);
  std::lock_guard<std::mutex> lock(st.mutex);
  tt::cuda::DeviceGuard guard(p.device);
  Plan& plan = plan_for(st, p);
  TT_CHECK(algo_index >= 0 && algo_index < static_cast<int>(plan.algos.size()),
           "cublaslt_gemm: algorithm index {} is out of range: cuBLASLt offers {} for {}x{}x{}",
           algo_index, plan.algos.size(), p.m, p.n, p.k);
  if (has_bias) {
    TT_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(plan.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                                                   &bias, sizeof(bias)));
  }
  void*& workspace = st.workspaces[stream];
  // A plain cudaMalloc, not the caching allocator: it lives as long as the process.
  if (workspace == nullptr) TT_CUDA_CHECK(cudaMalloc(&workspace, kLtWorkspaceBytes));
  const float alpha = 1.f, beta = residual ? 1.f : 0.f;
  const cublasLtMatmulHeuristicResult_t& algo = plan.algos[algo_index];
  TT_CUBLAS_CHECK(cublasLtMatmul(st.handle, plan.desc, &alpha, w, plan.a, x, plan.b, &beta,
                                 residual ? residual : c, plan.c, c, plan.c, &algo.algo, workspace,
                                 kLtWorkspaceBytes, stream));
}

void cublaslt_gemm(const LtProblem& p, const float* x, const float* w, const float* bias, float* c,
                   int algo_index, const float* residual) {
  cublaslt_gemm_on(p, x, w, bias, c, algo_index, tt::cuda::stream(p.device), residual);
}

}  // namespace tt::ops::cuda::gemm
