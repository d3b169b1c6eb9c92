// Deterministic seeds for model initialisation. A model constructor takes one seed
// and gives each of its parameters (and each sub-layer) a seed of its own, derived
// here, so that two parameters never draw the same Philox stream and the same seed
// always rebuilds the same weights.
#pragma once

#include <cstdint>

namespace tt::nn {

// SplitMix64's finaliser: a bijection on 64 bits that scatters nearby inputs.
inline uint64_t mix_seed(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// The seed of the k-th parameter or sub-layer of something built with `seed`.
// Distinct k give distinct results for the same seed because mix_seed is a bijection.
inline uint64_t derive_seed(uint64_t seed, uint64_t k) { return mix_seed(mix_seed(seed) + k); }

}  // namespace tt::nn
