// The compiled variants of the sm90 tensor-core GEMM family, one X-macro row each:
//   X(mode, A_REGS, BM, BN, BK, STAGES, CONSUMERS, PINGPONG, CLUSTER)
// A_REGS 1: A (X's tile) goes to the tensor cores from registers (accurate always, split
// into hi/lo there); 0: straight from shared memory (tf32 only). PINGPONG 1: each consumer
// warpgroup owns a (BM / CONSUMERS) x BN tile and the consumers take turns in the main loop, so
// one's epilogue overlaps the other's products; 0: the consumers share one BM x BN tile. CLUSTER:
// CTAs per cluster along M, which share W's tiles through the TMA's multicast (1: no cluster).
// tc_gemm.cu instantiates one kernel per row and the variant list is built from the
// same rows, so a new variant is one line here. Everything else (promotion interval,
// raster group and order, persistence, epilogue stores) is a run-time field of
// TcConfig and needs no row. Rules each row must keep (static_asserts in
// tc_gemm_kernel.cuh): BM / CONSUMERS a multiple of 64; BN one of the generated wgmma N
// (64, 128, 192, 256); BK a multiple of 32; shared memory STAGES * (BM + BN) * BK * 4
// bytes (accurate: plus BN * BK * 4 for W's lo half) within 227 KB. Registers: a
// consumer thread holds BM / CONSUMERS / 64 * BN / 2 accumulators, three times that for
// accurate (two alternating tensor-core sums and the promoted one), within ~224.
// Measured and dropped (H100, slower everywhere): tf32 BK=64 with 2 stages, tf32 64x256
// with one consumer, accurate 128x64 and 64x128; tf32 ping-pong 128x256 / 128x192 (0.411 /
// 0.482 ms vs 0.333 at 1024x8192x8192, 0.917 / 1.188 vs 0.795 at 32768x4096x1024) and
// 256x128 / 256x192; accurate ping-pong 128x128 (1.84-2.10 ms vs 1.30); tf32 a_regs
// 128x192 and 256x128 (never the best of their mode at a seed shape); with clusters
// sharing W (2026-11-23): tf32 ping-pong 256x128 at cluster 2 and 4 (0.49-0.60 / 0.99-1.11 /
// 1.93-2.17 ms vs cooperative 128x256 cluster 2's 0.35 / 0.80-0.82 / 1.41-1.49) and accurate
// 128x128 at cluster 2 (1-10% slower than cluster 1, and ptxas serializes its wgmmas once
// the accurate k-steps alternate their order). Also dropped (2026-11-23, back-to-back runs
// at the power limit): tf32 128x256 with 3 stages, which leaves room for 5 epilogue
// buffers instead of 2 (0.918-0.947 vs 0.903-0.937 ms at 32768x4096x1024 over cluster 1
// and 2, 1.62-1.68 vs 1.58-1.66 at 16384x4096x4096).
// Ping-pong came back with a fifth stage (2026-11-23, timed interleaved with cuBLASLt TF32):
// tf32 256x128 ping-pong, 5 stages, is the fastest row at 32768x4096x1024 (0.812 ms,
// 1.05x cuBLASLt TF32, vs 0.822 ms, 1.06x, for cooperative 128x256), where each tile's
// main loop is short next to its epilogue; with 4 stages (0.858-0.938 ms) its 32 KB stages
// cover too little of the load latency. Slower there: cooperative 128x128 with 4 stages
// (whole tile in epilogue buffers, 1.17 ms), ping-pong at cluster 2 (0.93 ms).
#pragma once

#define TT_TC_GEMM_VARIANTS(X)             \
  X(tf32, 0, 128, 256, 32, 4, 2, 0, 1)     \
  X(tf32, 0, 128, 192, 32, 5, 2, 0, 1)     \
  X(tf32, 0, 128, 128, 32, 6, 2, 0, 1)     \
  X(tf32, 0, 256, 128, 32, 4, 2, 0, 1)     \
  X(tf32, 1, 128, 256, 32, 4, 2, 0, 1)     \
  X(tf32, 0, 128, 256, 32, 4, 2, 0, 2)     \
  X(tf32, 0, 256, 128, 32, 5, 2, 1, 1)     \
  X(accurate, 1, 128, 128, 32, 4, 2, 0, 1) \
  X(accurate, 1, 128, 128, 32, 3, 2, 0, 1)
