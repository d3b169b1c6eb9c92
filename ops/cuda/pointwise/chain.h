// The pointwise family's chain kernel: a chain of unary and binary ops of
// ops/pointwise_functors.h evaluated per element in registers, one read of each operand
// and one write of the result. The chain is data (the fused pointwise groups of
// tt::compile, ops/graph/fusion.h, lower into it), so one compiled kernel serves every
// chain and nothing is compiled at run time.
//
// The value starts as operand `first`; each step applies its op to it, a binary step
// with one more operand (on the left when operand_first, as in `c - v`). Operands
// broadcast into the output's shape: kFlat (contiguous, the output's shape), kScalar
// (one value), kRow (the last dim's vector, a bias), or kStrided (any strides).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "ops/pointwise_functors.h"

namespace tt::ops::cuda::chain {

constexpr int kMaxOperands = 8;
constexpr int kMaxSteps = 16;
constexpr int kMaxRank = 6;

enum class Layout : uint8_t { kFlat, kScalar, kRow, kStrided };

struct Operand {
  const float* data = nullptr;
  Layout layout = Layout::kFlat;
  int64_t strides[kMaxRank] = {};  // kStrided: per output dim (0 where broadcast)
};

struct Step {
  bool binary = false;
  uint8_t op = 0;  // a pointwise::UnaryOp or BinaryOp
  int8_t operand = -1;
  bool operand_first = false;
  pointwise::UnaryParams params;
};

struct Chain {
  int rank = 1;
  int64_t sizes[kMaxRank] = {};  // the output's shape
  int first = 0;
  int operand_count = 0;
  Operand operands[kMaxOperands];
  int step_count = 0;
  Step steps[kMaxSteps];
  std::string str() const;  // "add,gelu" for reports
};

// The chain kernel's tunable axes (chain_space.cpp declares them as a descriptor).
struct ChainConfig {
  int threads = 256;
  int vec = 4;  // elements per thread per pass, when the layouts and alignment allow
};

// The config for this chain over numel elements on `device`: the tuning database's entry
// for kernel "pointwise.chain" and the chain's problem key, else the default.
ChainConfig choose_config(const Chain& c, int64_t numel, int device);

// out (contiguous, the chain's shape, numel elements) = the chain.
void run_chain(const Chain& c, float* out, int64_t numel, const ChainConfig& cfg, int device,
               cudaStream_t stream);

}  // namespace tt::ops::cuda::chain
