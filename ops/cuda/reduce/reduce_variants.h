// The compiled variants of the reduction family, as X-macro lists: reduce_config.cpp
// turns them into the config tables and spaces, the launchers instantiate one kernel
// per entry (per op). To add a variant, add a line here. Untuned first guesses (no
// GPU measurement yet): the defaults are chosen by default_for(), not by position.
//
// Register budget: a thread holds vec * items floats in flight (inner, outer) or
// held (row maps): at most 32 at 512 threads and 16 at 1024 (the 64K-register file).
// Outer variants keep threads * vec <= 1024 so that the block's per-column partial
// states (up to 16 bytes each) fit the static 48 KiB of shared memory.
#pragma once

// X(threads, lanes, vec, items)
#define TT_REDUCE_INNER_VARIANTS(X) \
  X(256, 4, 4, 1)                   \
  X(256, 8, 4, 2)                   \
  X(256, 16, 4, 2)                  \
  X(256, 16, 4, 8)                  \
  X(256, 32, 4, 2)                  \
  X(256, 32, 4, 4)                  \
  X(256, 32, 4, 8)                  \
  X(128, 32, 4, 8)                  \
  X(256, 256, 4, 2)                 \
  X(256, 256, 4, 4)                 \
  X(512, 512, 4, 4)                 \
  X(1024, 1024, 4, 2)               \
  X(256, 32, 2, 4)                  \
  X(256, 256, 2, 4)                 \
  X(256, 8, 1, 4)                   \
  X(256, 32, 1, 8)                  \
  X(256, 256, 1, 8)                 \
  X(1024, 1024, 1, 4)

// X(threads, col_threads, vec, items)
#define TT_REDUCE_OUTER_VARIANTS(X) \
  X(256, 32, 4, 4)                  \
  X(256, 32, 4, 8)                  \
  X(256, 32, 4, 2)                  \
  X(256, 16, 4, 4)                  \
  X(256, 8, 4, 4)                   \
  X(128, 32, 4, 4)                  \
  X(256, 64, 2, 4)                  \
  X(256, 32, 2, 4)                  \
  X(256, 128, 1, 4)                 \
  X(256, 32, 1, 8)                  \
  X(256, 8, 1, 8)                   \
  X(256, 4, 1, 8)                   \
  X(512, 64, 1, 4)

// X(reg, threads, lanes, vec, items): reg = 1 holds the row (capacity lanes*vec*items),
// reg = 0 streams it in tiles of lanes*vec*items.
#define TT_ROW_MAP_VARIANTS(X) \
  X(1, 128, 4, 4, 1)           \
  X(1, 128, 8, 4, 1)           \
  X(1, 128, 16, 4, 1)          \
  X(1, 128, 32, 4, 1)          \
  X(1, 128, 32, 4, 2)          \
  X(1, 128, 32, 4, 4)          \
  X(1, 256, 32, 4, 4)          \
  X(1, 128, 32, 4, 8)          \
  X(1, 256, 32, 4, 8)          \
  X(1, 128, 128, 4, 4)         \
  X(1, 256, 256, 4, 2)         \
  X(1, 256, 256, 4, 4)         \
  X(1, 512, 512, 4, 2)         \
  X(1, 1024, 1024, 4, 1)       \
  X(1, 512, 512, 4, 4)         \
  X(1, 1024, 1024, 4, 2)       \
  X(1, 512, 512, 4, 8)         \
  X(1, 1024, 1024, 4, 4)       \
  X(1, 128, 32, 2, 4)          \
  X(1, 256, 256, 2, 8)         \
  X(1, 128, 32, 1, 4)          \
  X(1, 128, 32, 1, 16)         \
  X(1, 256, 256, 1, 8)         \
  X(1, 512, 512, 1, 16)        \
  X(1, 1024, 1024, 1, 16)      \
  X(0, 256, 256, 4, 4)         \
  X(0, 512, 512, 4, 4)         \
  X(0, 1024, 1024, 4, 2)       \
  X(0, 128, 32, 4, 4)          \
  X(0, 256, 256, 1, 8)         \
  X(0, 1024, 1024, 1, 4)
