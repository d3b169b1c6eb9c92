// The compiled variants of the normalisation kernels, as X-macro lists: the config
// code (ops/cuda/norm/norm_config.cu) turns them into the candidate tables, and each
// launcher instantiates one kernel per entry. To add a variant, add a line here.
#pragma once

// X(kind, threads, lanes, vec, items, cluster, buffers)
//
// Within a kind the first entry that fits is the default (norm_config.cu), so the
// measured favourites come first (tools/device/norm_check.sh; the figures:
// docs/performance.md, "Measurement history moved out of the code").
//
// Subwarp variants serve short segments (64-channel groups after a GEMM, group norm on
// [N, C]); block variants rows of up to 32K floats (8192 after a GEMM); cluster
// variants whole 1 MiB instance-norm slices on chip (InstanceNorm2d), pipe variants the
// same with the next slices prefetched into shared memory; stream variants any
// length. Split variants (a cluster streaming a slice twice, the re-read meant to hit
// L2) were dropped: the pipe kernel beat every cluster size there. Register budgets: threads * vec
// * items floats per CTA must stay in the 64K-register file with room for addresses (at most 64
// floats per thread, and 32 at 1024 threads). Subwarp variants with buffers = b > 1 give each
// subgroup b segments whose loads are all in flight together (b segments' registers count against
// the same budget). For the swish/bias/group-norm pass (64-float groups) 4 lanes x 16 floats at 128
// threads is the fastest subwarp shape, near the memory floor.
// The rows in four lists by kind, so that each list's kernels can be instantiated in a
// translation unit of its own (norm_chain_any_*.cu); TT_NORM_SEGMENT_VARIANTS is all of
// them, in this order.
#define TT_NORM_SUBWARP_VARIANTS(X) \
  X(kSubwarp, 128, 4, 4, 4, 1, 0)   \
  X(kSubwarp, 128, 4, 4, 4, 1, 2)   \
  X(kSubwarp, 64, 4, 4, 4, 1, 0)    \
  X(kSubwarp, 128, 2, 4, 8, 1, 0)   \
  X(kSubwarp, 256, 2, 4, 8, 1, 0)   \
  X(kSubwarp, 256, 8, 4, 2, 1, 0)   \
  X(kSubwarp, 256, 8, 4, 2, 1, 2)   \
  X(kSubwarp, 256, 8, 4, 4, 1, 0)   \
  X(kSubwarp, 256, 8, 4, 1, 1, 0)   \
  X(kSubwarp, 256, 16, 4, 1, 1, 0)  \
  X(kSubwarp, 256, 16, 4, 2, 1, 0)  \
  X(kSubwarp, 256, 32, 4, 1, 1, 0)  \
  X(kSubwarp, 256, 32, 4, 2, 1, 0)  \
  X(kSubwarp, 256, 32, 4, 4, 1, 0)  \
  X(kSubwarp, 256, 32, 4, 8, 1, 0)  \
  X(kSubwarp, 128, 16, 4, 1, 1, 0)  \
  X(kSubwarp, 512, 16, 4, 1, 1, 0)  \
  X(kSubwarp, 256, 4, 4, 4, 1, 0)   \
  X(kSubwarp, 256, 4, 4, 2, 1, 0)   \
  X(kSubwarp, 256, 4, 4, 8, 1, 0)   \
  X(kSubwarp, 128, 32, 2, 1, 1, 0)  \
  X(kSubwarp, 512, 32, 2, 1, 1, 0)  \
  X(kSubwarp, 256, 16, 2, 1, 1, 0)  \
  X(kSubwarp, 256, 16, 2, 2, 1, 0)  \
  X(kSubwarp, 256, 32, 2, 1, 1, 0)  \
  X(kSubwarp, 256, 32, 2, 2, 1, 0)  \
  X(kSubwarp, 256, 32, 2, 4, 1, 0)  \
  X(kSubwarp, 256, 32, 2, 8, 1, 0)  \
  X(kSubwarp, 256, 8, 1, 1, 1, 0)   \
  X(kSubwarp, 256, 16, 1, 1, 1, 0)  \
  X(kSubwarp, 256, 32, 1, 1, 1, 0)  \
  X(kSubwarp, 256, 32, 1, 2, 1, 0)  \
  X(kSubwarp, 256, 32, 1, 4, 1, 0)  \
  X(kSubwarp, 256, 32, 1, 8, 1, 0)

#define TT_NORM_BLOCK_VARIANTS(X)   \
  X(kBlock, 128, 128, 4, 1, 1, 0)   \
  X(kBlock, 128, 128, 4, 2, 1, 0)   \
  X(kBlock, 128, 128, 4, 4, 1, 0)   \
  X(kBlock, 128, 128, 4, 8, 1, 0)   \
  X(kBlock, 256, 256, 4, 1, 1, 0)   \
  X(kBlock, 256, 256, 4, 2, 1, 0)   \
  X(kBlock, 256, 256, 4, 4, 1, 0)   \
  X(kBlock, 256, 256, 4, 8, 1, 0)   \
  X(kBlock, 256, 256, 4, 16, 1, 0)  \
  X(kBlock, 512, 512, 4, 4, 1, 0)   \
  X(kBlock, 512, 512, 4, 8, 1, 0)   \
  X(kBlock, 512, 512, 4, 16, 1, 0)  \
  X(kBlock, 1024, 1024, 4, 4, 1, 0) \
  X(kBlock, 1024, 1024, 4, 8, 1, 0) \
  X(kBlock, 256, 256, 2, 2, 1, 0)   \
  X(kBlock, 256, 256, 2, 4, 1, 0)   \
  X(kBlock, 256, 256, 2, 8, 1, 0)   \
  X(kBlock, 256, 256, 2, 16, 1, 0)  \
  X(kBlock, 1024, 1024, 2, 8, 1, 0) \
  X(kBlock, 256, 256, 1, 4, 1, 0)   \
  X(kBlock, 256, 256, 1, 8, 1, 0)   \
  X(kBlock, 256, 256, 1, 16, 1, 0)  \
  X(kBlock, 1024, 1024, 1, 16, 1, 0)

#define TT_NORM_STREAM_CLUSTER_VARIANTS(X) \
  X(kStream, 512, 512, 4, 4, 1, 0)         \
  X(kStream, 256, 256, 4, 4, 1, 0)         \
  X(kStream, 1024, 1024, 4, 2, 1, 0)       \
  X(kStream, 256, 256, 2, 4, 1, 0)         \
  X(kStream, 256, 256, 1, 8, 1, 0)         \
  X(kStream, 1024, 1024, 1, 4, 1, 0)       \
  X(kCluster, 512, 512, 4, 16, 2, 0)       \
  X(kCluster, 512, 512, 4, 8, 4, 0)        \
  X(kCluster, 512, 512, 4, 16, 4, 0)       \
  X(kCluster, 512, 512, 4, 16, 8, 0)       \
  X(kCluster, 256, 256, 4, 16, 16, 0)      \
  X(kCluster, 512, 512, 4, 8, 16, 0)       \
  X(kCluster, 1024, 1024, 4, 4, 16, 0)     \
  X(kCluster, 1024, 1024, 2, 8, 16, 0)     \
  X(kCluster, 1024, 1024, 1, 16, 16, 0)

#define TT_NORM_PIPE_SPLIT_VARIANTS(X) \
  X(kPipe, 256, 256, 4, 16, 16, 2)     \
  X(kPipe, 256, 256, 4, 16, 16, 1)     \
  X(kPipe, 256, 256, 4, 16, 16, 3)     \
  X(kPipe, 512, 512, 4, 16, 8, 1)      \
  X(kPipe, 512, 512, 4, 8, 16, 2)      \
  X(kPipe, 512, 512, 4, 8, 16, 3)      \
  X(kPipe, 256, 256, 4, 16, 8, 2)      \
  X(kPipe, 256, 256, 4, 16, 4, 2)      \
  X(kSplit, 256, 256, 4, 4, 4, 0)      \
  X(kSplit, 256, 256, 4, 4, 8, 0)

#define TT_NORM_SEGMENT_VARIANTS(X) \
  TT_NORM_SUBWARP_VARIANTS(X)       \
  TT_NORM_BLOCK_VARIANTS(X) TT_NORM_STREAM_CLUSTER_VARIANTS(X) TT_NORM_PIPE_SPLIT_VARIANTS(X)

// X(threads, col_threads, vec, items, chunk_rows)
#define TT_NORM_COLUMN_STATS_VARIANTS(X) \
  X(256, 64, 4, 4, 256)                  \
  X(256, 32, 4, 4, 256)                  \
  X(256, 32, 4, 4, 128)                  \
  X(256, 32, 4, 4, 512)                  \
  X(256, 32, 4, 8, 256)                  \
  X(256, 32, 4, 2, 256)                  \
  X(512, 32, 4, 4, 512)                  \
  X(128, 32, 4, 4, 128)                  \
  X(256, 32, 2, 4, 256)                  \
  X(256, 64, 2, 4, 256)                  \
  X(256, 32, 1, 8, 256)                  \
  X(256, 64, 1, 4, 256)                  \
  X(256, 8, 1, 4, 256)                   \
  X(256, 8, 4, 4, 256)

// X(threads, vec, items)
#define TT_NORM_AFFINE_VARIANTS(X) \
  X(256, 4, 1)                     \
  X(256, 4, 4)                     \
  X(256, 4, 2)                     \
  X(512, 4, 2)                     \
  X(128, 4, 4)                     \
  X(256, 2, 4)                     \
  X(256, 1, 4)                     \
  X(256, 1, 8)
