// The simt2 kernel's shared memory and residency (attention_simt2.cuh holds the kernel),
// in plain C++ so that the config side (attention_config.cpp) and the kernel agree.
#pragma once

namespace tt::ops::cuda::attention {

// Shared-memory floats of a simt2 block of `warps` warps, `tm` query rows per thread
// (2 * warps * tm per block) and `bn` keys per tile: Q (its row groups padded apart by
// 4 floats), K (rows padded to E + 4), V, P ([bn][rows + 4]), the softmax state (each
// row's max, each lane's partial sums: [16][rows + 4]); kdb: K's second stage.
constexpr int simt2_smem_floats(int E, int warps, int tm, int bn, bool kdb = false) {
  const int bm = 2 * warps * tm;
  return bm * E + 2 * warps * 4 + bn * (E + 4) * (kdb ? 2 : 1) + bn * E + bn * (bm + 4) + bm +
         16 * (bm + 4);
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
