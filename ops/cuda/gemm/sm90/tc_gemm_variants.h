// The compiled variants of the sm90 tensor-core GEMM family, one X-macro row each:
//   X(mode, A_REGS, BM, BN, BK, STAGES, CONSUMERS, PINGPONG, CLUSTER)
// A_REGS 1: A (X's tile) goes to the tensor cores from registers (accurate always, split
// into hi/lo there); 0: straight from shared memory (tf32 only). PINGPONG 1: each consumer
// warpgroup owns a (BM / CONSUMERS) x BN tile and the consumers take turns in the main loop, so
// one's epilogue overlaps the other's products; 0: the consumers share one BM x BN tile. CLUSTER:
// CTAs per cluster along M, which share W's tiles through the TMA's multicast (1: no cluster).
// Two kernels are instantiated per row, without residual steps in the TMA store epilogue
// (tc_gemm.cu) and with them (tc_gemm_residual.cu), and the variant list is built from the
// same rows, so a new variant is one line here. Everything else (promotion interval,
// raster group and order, persistence, epilogue stores) is a run-time field of
// TcConfig and needs no row. Rules each row must keep (static_asserts in
// tc_gemm_kernel.cuh): BM / CONSUMERS a multiple of 64; BN one of the generated wgmma N
// (64, 128, 192, 256); BK a multiple of 32; shared memory STAGES * (BM + BN) * BK * 4
// bytes (accurate: plus BN * BK * 4 for W's lo half) within 227 KB. Registers: a
// consumer thread holds BM / CONSUMERS / 64 * BN / 2 accumulators, three times that for
// accurate (two alternating tensor-core sums and the promoted one), within ~224.
// The rows are the ones that were fastest somewhere at the seed shapes; every other
// shape tried was slower everywhere and was dropped. The tf32 256x128 ping-pong row has
// five stages because with four its 32 KB stages cover too little of the load latency
// where each tile's main loop is short next to its epilogue. What was tried, with the
// times: docs/performance.md, "Measurement history moved out of the code".
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
