// The simt2 kernel's shared memory and residency (attention_simt2.cuh holds the kernel),
// in plain C++ so that the config side (attention_config.cpp) and the kernel agree.
#pragma once

namespace tt::ops::cuda::attention {

// Per-variant kernel options, chosen by the H100 sweep of one call
// (tools/device/attention_simt_bench.cu, PyTorch in the same call; docs/performance.md):
// K double-buffered (two barriers a tile instead of three) for 4 warps of 8 rows at head
// dim 64 (B8 H16 T1024 0.987 ms vs 0.993, T4096 3.822 vs 3.848; causal 0.593 vs 0.591);
// the softmax state in shared memory (16 registers fewer) for 8 warps of 8 rows at 128
// (1.788 vs 1.836, causal 1.132 vs 1.162). Elsewhere neither won.
constexpr bool simt2_kdb(int E, int warps, int tm, int bn) {
  return E == 64 && warps == 4 && tm == 8 && bn == 64;
}
constexpr bool simt2_mls(int E, int warps, int tm, int bn) {
  return E == 128 && warps == 8 && tm == 8 && bn == 64;
}

// Shared-memory floats of a simt2 block of `warps` warps, `tm` query rows per thread
// (2 * warps * tm per block) and `bn` keys per tile: Q (its row groups padded apart by
// 4 floats), K (rows padded to E + 4; kdb: two stages), V, P ([bn][rows + 4]), the
// softmax state (each row's max, each lane's partial sums: [16][rows + 4]).
constexpr int simt2_smem_floats(int E, int warps, int tm, int bn, bool kdb) {
  const int bm = 2 * warps * tm;
  return bm * E + 2 * warps * 4 + bn * (E + 4) * (kdb ? 2 : 1) + bn * E + bn * (bm + 4) + bm +
         16 * (bm + 4);
}
// The same with the variant's own option.
constexpr int simt2_smem_floats(int E, int warps, int tm, int bn) {
  return simt2_smem_floats(E, warps, tm, bn, simt2_kdb(E, warps, tm, bn));
}

// Resident blocks per SM that the kernel's launch bounds ask for: two where 227 KB of
// shared memory allows (H100, B8 H16 T1024 E64: 8 warps a block at 2 blocks and 128
// registers 0.993 ms, at 1 block and 208 registers 1.024; 4 warps at 2 blocks and 255
// registers 1.010, at 3 blocks and 168 registers 1.036).
constexpr int simt2_min_blocks(int E, int warps, int tm, int bn) {
  const int by_smem = 232448 / (simt2_smem_floats(E, warps, tm, bn) * 4 + 1024);
  return by_smem < 1 ? 1 : by_smem < 2 ? by_smem : 2;
}

}  // namespace tt::ops::cuda::attention
