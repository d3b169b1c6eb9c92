// Where pipe 15 (sm90/attention_wgmma_quad.cuh, CONV) puts a key tile's V16 in its stage: P V's B
// operand N-major, V's rows as they are in fp16, 128 bytes a 64-element panel on the 128-byte
// swizzle, in groups of 8 rows [BN / 8][E / 64][8][128 bytes] (a group's panels 1024 bytes
// apart, the groups kV16GroupBytes apart: the wgmma descriptor's stride). The converting warp
// writes it over V's raw tile ([BN][E] floats) in place, 4 rows at a time, each batch read
// whole first: every byte a batch writes lies on raw rows at or before its own (row r's fp16
// on raw rows 4 (r / 8) + 2 h + (r % 8) / 4 at E = 128, r / 2 at E = 64), so no write lands
// on a row not yet read (tests/attention_test.cpp checks it). Plain C++: the test reads it as
// the kernel does.
#pragma once

#include <cstdint>

namespace tt::ops::cuda::attention {

template <int E>
inline constexpr uint32_t kV16GroupBytes = E / 64 * 1024;

// The byte offset of row r's 16-byte chunk c (elements 8c .. 8c + 7).
template <int E>
constexpr int v16_chunk_offset(int r, int c) {
  return (r / 8) * (E / 64) * 1024 + (c / 8) * 1024 + (r % 8) * 128 + ((c % 8) ^ (r % 8)) * 16;
}

}  // namespace tt::ops::cuda::attention
