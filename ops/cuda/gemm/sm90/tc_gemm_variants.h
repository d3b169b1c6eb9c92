// The compiled variants of the sm90 tensor-core GEMM family, one X-macro row each:
//   X(mode, BM, BN, BK, STAGES, CONSUMERS, PROMOTE, PINGPONG)
// PINGPONG 1: each consumer warpgroup owns a (BM / CONSUMERS) x BN tile and the
// consumers take turns in the main loop, so one's epilogue overlaps the other's
// products; 0: the consumers share one BM x BN tile.
// tc_gemm.cu instantiates one kernel per row and the variant list is built from the
// same rows, so a new variant is one line here. Rules each row must keep (checked by
// static_asserts in tc_gemm_kernel.cuh): BM / CONSUMERS a multiple of 64; BN one of
// the generated wgmma N (64, 128, 192, 256); BK a multiple of 32; shared memory
// STAGES * (BM + BN) * BK * 4 bytes (twice that for accurate: the lo halves) within
// 227 KB; accurate needs PROMOTE a multiple of BK, tf32 takes PROMOTE 0. Registers:
// a consumer thread holds BM / CONSUMERS / 64 * BN / 2 accumulators, three times that for
// accurate (two alternating tensor-core sums and the promoted one), within ~232
// registers (accurate BM=128 BN=192 spilled 6 KB: not listed). Measured and dropped
// (H100, slower everywhere): tf32 BK=64 with 2 stages, tf32 64x256 with one consumer,
// accurate 128x64 and 64x128; tf32 ping-pong 256x128 (6 stages) and 256x192 (5 stages):
// 0.415 / 0.449 ms vs 0.340 at 1024x8192x8192, 1.051 / 0.955 vs 0.921 at 32768x4096x1024.
#pragma once

#define TT_TC_GEMM_VARIANTS(X)            \
  X(tf32, 128, 256, 32, 4, 2, 0, 0)       \
  X(tf32, 128, 192, 32, 5, 2, 0, 0)       \
  X(tf32, 128, 128, 32, 6, 2, 0, 0)       \
  X(tf32, 256, 128, 32, 4, 2, 0, 0)       \
  X(tf32, 128, 256, 32, 4, 2, 0, 1)       \
  X(tf32, 128, 192, 32, 5, 2, 0, 1)       \
  X(accurate, 128, 128, 32, 3, 2, 64, 0)  \
  X(accurate, 128, 128, 32, 3, 2, 32, 0)  \
  X(accurate, 128, 128, 32, 3, 2, 128, 0) \
  X(accurate, 128, 128, 32, 3, 2, 64, 1)  \
  X(accurate, 128, 128, 32, 3, 2, 32, 1)
