// Counter-based random numbers (Philox 4x32-10, Salmon et al. 2011) shared by the CPU
// and the GPU: element i of a tensor drawn with a seed is a pure function of
// (seed, i). Every floating-point step uses only IEEE-exact operations (integer
// math, +, *, /, sqrt and explicit fma), so both sides produce bit-identical values.
#pragma once

#include <cstdint>
#include <cstring>
#include <type_traits>

#if defined(__CUDACC__)
#define TT_HD __host__ __device__ __forceinline__
#else
#define TT_HD inline
#include <cmath>
#endif

namespace tt::philox {

struct U4 {
  uint32_t x, y, z, w;
};

TT_HD uint32_t mulhilo(uint32_t a, uint32_t b, uint32_t* hi) {
  uint64_t p = static_cast<uint64_t>(a) * b;
  *hi = static_cast<uint32_t>(p >> 32);
  return static_cast<uint32_t>(p);
}

TT_HD U4 philox4x32_10(U4 c, uint32_t k0, uint32_t k1) {
  for (int r = 0; r < 10; ++r) {
    uint32_t hi0, hi1;
    uint32_t lo0 = mulhilo(0xD2511F53u, c.x, &hi0);
    uint32_t lo1 = mulhilo(0xCD9E8D57u, c.z, &hi1);
    c = U4{hi1 ^ c.y ^ k0, lo1, hi0 ^ c.w ^ k1, lo0};
    k0 += 0x9E3779B9u;
    k1 += 0xBB67AE85u;
  }
  return c;
}

// The 32 random bits for element `index` of stream `stream` (0: uniform, 1: normal).
TT_HD uint32_t bits(uint64_t seed, uint64_t index, uint32_t stream, uint32_t* partner) {
  uint64_t group = index >> 2;
  U4 r =
      philox4x32_10(U4{static_cast<uint32_t>(group), static_cast<uint32_t>(group >> 32), stream, 0},
                    static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  uint32_t v[4] = {r.x, r.y, r.z, r.w};
  unsigned lane = static_cast<unsigned>(index & 3);
  if (partner) *partner = v[lane ^ 1];
  return v[lane];
}

// An integer in [low, low + range) (range >= 1) from 64 random bits of stream 2 (the
// pair of lanes 2 * index, 2 * index + 1), reduced modulo range: the bias is below
// range / 2^64. Integer math only, so identical on both sides.
TT_HD int64_t randint(uint64_t seed, uint64_t index, int64_t low, uint64_t range) {
  uint32_t hi = 0;
  const uint32_t lo = bits(seed, index * 2, 2, &hi);
  const uint64_t r = ((static_cast<uint64_t>(hi) << 32) | lo) % range;
  return static_cast<int64_t>(static_cast<uint64_t>(low) + r);
}

// Uniform [0, 1) with 24 random bits, exactly representable in float32.
TT_HD float uniform(uint64_t seed, uint64_t index) {
  return static_cast<float>(bits(seed, index, 0, nullptr) >> 8) * (1.0f / 16777216.0f);
}

// a * b + c rounded once (float or double), the same instruction's result on both sides.
template <typename T>
TT_HD T fma_(T a, T b, T c) {
#if defined(__CUDA_ARCH__)
  if constexpr (std::is_same_v<T, float>) {
    return __fmaf_rn(a, b, c);
  } else {
    return __fma_rn(a, b, c);
  }
#else
  return std::fma(a, b, c);
#endif
}

TT_HD double sqrt_(double a) {
#if defined(__CUDA_ARCH__)
  return __dsqrt_rn(a);
#else
  return std::sqrt(a);
#endif
}

// Uniform [lo, lo + span): one explicit fma, so that neither compiler's contraction
// choices can make the CPU and the GPU round differently.
TT_HD float uniform_in(uint64_t seed, uint64_t index, float lo, float span) {
  return fma_(span, uniform(seed, index), lo);
}

// ln(u) for u in (0, 1], from the exponent bits and an atanh series; no libm.
TT_HD double log_(double u) {
  uint64_t b;
  memcpy(&b, &u, sizeof b);
  int e = static_cast<int>((b >> 52) & 0x7FF) - 1022;  // u = m * 2^e, m in [0.5, 1)
  b = (b & 0x000FFFFFFFFFFFFFull) | 0x3FE0000000000000ull;
  double m;
  memcpy(&m, &b, sizeof m);
  if (m < 0.70710678118654752) {  // keep m in [sqrt(1/2), sqrt(2))
    m = m * 2.0;
    e -= 1;
  }
  double s = (m - 1.0) / (m + 1.0);
  double s2 = s * s;
  double p = 1.0 / 23.0;
  for (int k = 21; k >= 1; k -= 2) p = fma_(p, s2, 1.0 / k);
  double ln_m = 2.0 * s * p;
  return fma_(static_cast<double>(e), 0.69314718055994530942, ln_m);
}

// sin and cos of 2*pi*t for t in [0, 1), by quadrant and Taylor series to degree
// 25 (truncation error below 1e-19 on [0, pi/2)); no libm.
TT_HD void sincos_2pi_(double t, double* s, double* c) {
  double q = t * 4.0;
  int k = static_cast<int>(q);
  double a = (q - k) * 1.57079632679489661923;  // [0, pi/2)
  double a2 = a * a;
  // Horner from the highest term: sin a = a * sum (-1)^j a^2j / (2j+1)!,
  // cos a = sum (-1)^j a^2j / (2j)!, j = 0..12.
  double ps = 0.0, pc = 0.0;
  for (int j = 12; j >= 0; --j) {
    double fs = 1.0, fc = 1.0;  // (2j+1)! and (2j)!, exact in double up to 25!
    for (int i = 2; i <= 2 * j; ++i) fc *= i;
    fs = fc * (2 * j + 1);
    double sign = (j & 1) ? -1.0 : 1.0;
    ps = fma_(ps, a2, sign / fs);
    pc = fma_(pc, a2, sign / fc);
  }
  double sa = ps * a, ca = pc;
  switch (k & 3) {
    case 0:
      *s = sa;
      *c = ca;
      break;
    case 1:
      *s = ca;
      *c = -sa;
      break;
    case 2:
      *s = -sa;
      *c = -ca;
      break;
    default:
      *s = -ca;
      *c = sa;
      break;
  }
}

// Standard normal by Box-Muller over the pair (lane, lane^1) of stream 1: even lanes
// take the cosine branch, odd lanes the sine branch of the same pair.
TT_HD float normal(uint64_t seed, uint64_t index) {
  uint32_t partner;
  uint32_t mine = bits(seed, index, 1, &partner);
  bool even = (index & 1) == 0;
  uint32_t b1 = even ? mine : partner, b2 = even ? partner : mine;
  double u1 = (static_cast<double>(b1) + 1.0) * (1.0 / 4294967296.0);  // (0, 1]
  double u2 = static_cast<double>(b2) * (1.0 / 4294967296.0);          // [0, 1)
  double r = sqrt_(-2.0 * log_(u1));
  double s, c;
  sincos_2pi_(u2, &s, &c);
  return static_cast<float>(r * (even ? c : s));
}

}  // namespace tt::philox
