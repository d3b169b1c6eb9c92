// Whether the attention family's TMA pipelines (wgmma pipes 2-5, 7-9, 11, 12, 14 and 15,
// sm90/attention_wgmma_kernels.cuh, attention_wgmma_persistent.cuh and
// attention_wgmma_quad.cuh) can read a problem's K (pipes 4, 7, 9, 11, 12, 14 and 15: and V; 8,
// 9, 11, 12, 14 and 15: and Q) through a
// tensor map: head dim contiguous, every stride a positive multiple of 16 bytes, at
// most three batch dims (a map has five: E, S and the batch dims). A broadcast batch dim
// (stride 0) or a fourth batch dim keeps the cp.async pipeline (pipe 1). Plain C++: the
// config's space reads it as the kernels' host side does.
#pragma once

#include "ops/attention_problem.h"

namespace tt::ops::cuda::attention {

inline constexpr int kTmaMaxBatchRank = 3;

// `st`: the operand's strides (p.k or p.v).
inline bool kv_tma_mappable(const AttentionProblem& p, const AttnStrides& st) {
  if (p.batch_rank > kTmaMaxBatchRank || st.col != 1) return false;
  if (p.S > 1 && (st.row <= 0 || st.row % 4 != 0)) return false;
  for (int d = 0; d < p.batch_rank; ++d) {
    if (p.batch[d] > 1 && (st.batch[d] <= 0 || st.batch[d] % 4 != 0)) return false;
  }
  return true;
}

// The problem with Q's L rows in K's place (S = L): Q read as K is (the persistent pipes
// read each query tile by TMA).
inline AttentionProblem queries_as_keys(const AttentionProblem& p) {
  AttentionProblem pq = p;
  pq.S = p.L;
  return pq;
}
inline bool q_tma_mappable(const AttentionProblem& p) {
  return kv_tma_mappable(queries_as_keys(p), p.q);
}

// The persistent pipes (sm90/attention_wgmma_persistent.cuh; 12, 14 and 15:
// attention_wgmma_quad.cuh): many query tiles per CTA.
constexpr bool persistent_pipe(int pipe) {
  return pipe == 8 || pipe == 9 || pipe == 11 || pipe == 12 || pipe == 14 || pipe == 15;
}

// The pipes that transpose V in the kernel (from V's own tensor map): no Vt pre-pass.
constexpr bool transposes_v_in_kernel(int pipe) { return pipe == 4 || pipe == 7 || pipe == 9; }

// The pipes that make most of Vt in the kernel, a unit ahead of its use (their launcher's
// pre-pass makes the first units' heads): they read V in 16-byte pieces, on V's map's terms.
constexpr bool makes_vt_ahead(int pipe) { return pipe == 11 || pipe == 12; }

// The pipes whose P V runs on fp16 (tf32's pipes 14 and 15): pipe 14's pre-pass reads V in
// 16-byte pieces, on V's map's terms, and writes V's fp16 hi for the first units' heads, the
// kernel the rest through V's map; pipe 15 converts each stage's V from V's map (and a rare
// tile again from V in 16-byte pieces); no float32 Vt.
constexpr bool halves_v(int pipe) { return pipe == 14 || pipe == 15; }

// The 2 x fp16 split's pipes (accurate only): 6, and 16 its persistent form. Both map the
// pre-pass's buffers, not K or V; pipe 16 reads Q by TMA.
constexpr bool f16_split_pipe(int pipe) { return pipe == 6 || pipe == 16; }

// The TMA pipe's operands have maps: K, V where the kernel transposes it (or makes Vt), Q
// where the kernel is persistent.
inline bool tma_mappable(const AttentionProblem& p, int pipe) {
  return kv_tma_mappable(p, p.k) &&
         (!(transposes_v_in_kernel(pipe) || makes_vt_ahead(pipe) || halves_v(pipe)) ||
          kv_tma_mappable(p, p.v)) &&
         (!persistent_pipe(pipe) || q_tma_mappable(p));
}

}  // namespace tt::ops::cuda::attention
