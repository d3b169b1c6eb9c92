// The pointwise family's chain kernel: a chain of unary and binary ops of
// ops/pointwise_functors.h evaluated per element in registers, one read of each operand
// and one write of the result. The fused pointwise groups of tt::compile
// (ops/graph/fusion.h) lower into a Chain. Two kernels run one: a kernel generated for
// the chain and compiled with NVRTC (chain_source.h, chain_nvrtc.h; cached in memory and
// on disk), prepared once when the group is lowered, and the interpreter compiled into
// the library (one kernel for every chain, the chain as data), which runs where NVRTC
// could not build one (the reason is in explain()) or an operand is misaligned for the
// generated kernel's 16-byte loads. docs/architecture.md says why both.
//
// The value starts as operand `first`; each step applies its op to it, a binary step
// with one more operand (on the left when operand_first, as in `c - v`). Operands
// broadcast into the output's shape: kFlat (contiguous, the output's shape), kScalar
// (one value), kRow (the last dim's vector, a bias), or kStrided (any strides).
//
// A chain may also be a DAG (the pointwise groups of tt::compile are trees and DAGs:
// GELU written out in plain ops reads x four times, a residual joins two branches): a
// step then names its inputs (`input`, and `operand` for a binary step's second) as refs,
// an operand (0 .. kMaxOperands - 1) or an earlier step's value (kStepRef + s), each
// value computed once; the last step's value is the output and `extra` steps' values
// are written too (a value the group's outside also reads).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "ops/pointwise_functors.h"

namespace tt::ops::cuda::chain {

constexpr int kMaxOperands = 8;
constexpr int kMaxSteps = 16;
constexpr int kMaxRank = 6;
constexpr int kMaxExtraOutputs = 3;
// A ref to step s's value is kStepRef + s; refs below kStepRef are operands.
constexpr int kStepRef = kMaxOperands;
// Step::input's chain form: the previous step's value (step 0: operand `first`).
constexpr int kPrevious = -1;

enum class Layout : uint8_t { kFlat, kScalar, kRow, kStrided };

struct Operand {
  const float* data = nullptr;
  Layout layout = Layout::kFlat;
  int64_t strides[kMaxRank] = {};  // kStrided: per output dim (0 where broadcast)
};

struct Step {
  bool binary = false;
  uint8_t op = 0;       // a pointwise::UnaryOp or BinaryOp
  int8_t operand = -1;  // a binary step's other input: an operand, or kStepRef + s
  bool operand_first = false;
  pointwise::UnaryParams params;
  int8_t input = kPrevious;  // the value the step applies to: kPrevious, or a ref

  static Step of(pointwise::UnaryOp op, pointwise::UnaryParams p = {}) {
    Step s;
    s.op = static_cast<uint8_t>(op);
    s.params = p;
    return s;
  }
  static Step of(pointwise::BinaryOp op, int operand, bool operand_first = false) {
    Step s;
    s.binary = true;
    s.op = static_cast<uint8_t>(op);
    s.operand = static_cast<int8_t>(operand);
    s.operand_first = operand_first;
    return s;
  }
};

struct Chain {
  int rank = 1;
  int64_t sizes[kMaxRank] = {};  // the output's shape
  int first = 0;
  int operand_count = 0;
  Operand operands[kMaxOperands];
  int step_count = 0;
  Step steps[kMaxSteps];
  // Steps whose values are written besides the last one's, each to its own buffer
  // (contiguous, the output's shape).
  int extra_count = 0;
  int8_t extra_steps[kMaxExtraOutputs] = {};
  float* extra_data[kMaxExtraOutputs] = {};

  // Whether any step names its inputs (the DAG form) or writes an extra output.
  bool dag() const;
  // Step s's main input as a ref (kPrevious resolved).
  int input_of(int s) const {
    return steps[s].input != kPrevious ? steps[s].input : s == 0 ? first : kStepRef + s - 1;
  }
  // "add,gelu" for reports; a DAG spells each step's refs, "add(a0 a1),sigmoid(a2),mul(v0 v1)".
  std::string str() const;
};

// The chain kernel's tunable axes (chain_space.cpp declares them as a descriptor).
struct ChainConfig {
  int threads = 256;
  int vec = 4;    // elements per thread per pass, when the layouts and alignment allow
  int items = 1;  // vectors per thread (the generated kernel; the interpreter ignores it)
};

// The config for this chain over numel elements on `device`: the tuning database's entry
// for kernel "pointwise.chain" and the chain's problem key, else the default.
ChainConfig choose_config(const Chain& c, int64_t numel, int device);

// Which kernel the chains prepared from now on run: the generated one (where NVRTC
// builds it) or the interpreter. TT_CHAIN_KERNEL=interpreter in the environment sets the
// start value; benchmarks and tests switch it to time and check both.
enum class ChainKernel { kGenerated, kInterpreter };
void set_chain_kernel(ChainKernel k);
ChainKernel chain_kernel();

// A chain's kernel, prepared once when its group is lowered.
struct PreparedChain {
  const void* generated = nullptr;  // null: the interpreter runs the chain
  bool vec4 = false;                // the generated kernel loads 16 bytes: aligned operands
  unsigned grid[3] = {1, 1, 1};
  unsigned block[3] = {1, 1, 1};
  std::string how;  // for explain(): "nvrtc, compiled in 85 ms", "interpreter: <why>"
};
PreparedChain prepare_chain(const Chain& c, const ChainConfig& cfg, int device);

// out (contiguous, the chain's shape, numel elements) = the chain: the prepared
// generated kernel when there is one and the pointers suit it, else the interpreter.
void run_chain(const Chain& c, float* out, int64_t numel, const ChainConfig& cfg, int device,
               cudaStream_t stream, const PreparedChain* prepared = nullptr);

}  // namespace tt::ops::cuda::chain
