// The compiled variants of our own tiled GEMM, in one X-macro so that the config
// table (gemm_config.cu) and the instantiations (tiled_gemm_*.cu) cannot disagree.
// X(BM, BN, BK, TM, TN, VEC, MIN_BLOCKS): CTA tile, K step, thread tile, global load
// width, and the CTAs per SM the register budget is sized for (__launch_bounds__).
// Every tile shape with VEC 4 needs K % 4 == 0 and 16-byte aligned X and W; the VEC 1
// rows are the fallbacks for any K and any address, one per CTA width, so that a tile
// holding whole groups for the group-norm epilogue always has a fallback that does
// too. Adding a row adds a variant.
//
// The 128-row tiles are the fastest at large shapes; the 64-row tiles only pay off for
// small problems (the figures: docs/performance.md, "Measurement history moved out of
// the code").
#pragma once

#define TT_GEMM_OWN_VARIANTS(X) \
  X(128, 128, 8, 8, 8, 4, 2)    \
  X(128, 128, 16, 8, 8, 4, 2)   \
  X(128, 128, 8, 8, 16, 4, 2)   \
  X(128, 128, 16, 8, 16, 4, 2)  \
  X(128, 256, 8, 8, 16, 4, 1)   \
  X(128, 64, 8, 8, 8, 4, 2)     \
  X(64, 64, 8, 8, 8, 4, 4)      \
  X(128, 128, 8, 8, 8, 2, 2)    \
  X(128, 128, 8, 8, 8, 1, 2)    \
  X(128, 256, 8, 8, 16, 1, 1)   \
  X(64, 64, 8, 8, 8, 1, 4)
