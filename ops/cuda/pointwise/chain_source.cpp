#include "ops/cuda/pointwise/chain_source.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>

namespace tt::ops::cuda::chain {
namespace {

namespace pw = tt::ops::pointwise;

// The functor's name, from the one op list (no second spelling of any op).
const char* functor_name(pw::UnaryOp op) {
  switch (op) {
#define TT_CHAIN_FUNCTOR(name, fn, text) \
  case pw::UnaryOp::name:                \
    return #fn;
    TT_POINTWISE_UNARY_OPS(TT_CHAIN_FUNCTOR)
#undef TT_CHAIN_FUNCTOR
  }
  return "IdentityFn";
}
const char* functor_name(pw::BinaryOp op) {
  switch (op) {
#define TT_CHAIN_FUNCTOR(name, fn, text) \
  case pw::BinaryOp::name:               \
    return #fn;
    TT_POINTWISE_BINARY_OPS(TT_CHAIN_FUNCTOR)
#undef TT_CHAIN_FUNCTOR
  }
  return "AddFn";
}

// A double as an exact device expression (its bits), infinities and NaN included.
std::string exact_double(double v) {
  uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  return fmt::format("__longlong_as_double(0x{:016x}LL)", bits);
}

int64_t numel_of(const Chain& c) {
  int64_t n = 1;
  for (int d = 0; d < c.rank; ++d) n *= c.sizes[d];
  return n;
}

// The largest element offset operand o reaches (its strides are >= 0).
int64_t max_offset(const Chain& c, const Operand& o) {
  switch (o.layout) {
    case Layout::kFlat:
      return numel_of(c) - 1;
    case Layout::kScalar:
      return 0;
    case Layout::kRow:
      return c.sizes[c.rank - 1] - 1;
    case Layout::kStrided: {
      int64_t m = 0;
      for (int d = 0; d < c.rank; ++d) m += (c.sizes[d] - 1) * o.strides[d];
      return m;
    }
  }
  return 0;
}

bool transposed(const Chain& c, const Operand& o) {
  return o.layout == Layout::kStrided && c.rank >= 2 && o.strides[c.rank - 1] > 1 &&
         o.strides[c.rank - 2] == 1 && c.sizes[c.rank - 1] > 1 && c.sizes[c.rank - 2] > 1;
}

// The offset of a strided operand at output element `e` (an expression of type I), with
// every size and stride a constant so the divisions become multiplications.
std::string strided_offset(const Chain& c, const Operand& o, const char* e) {
  std::string expr, rest = e;
  for (int d = c.rank - 1; d >= 0; --d) {
    const int64_t size = c.sizes[d];
    if (o.strides[d] != 0 && size > 1) {
      const std::string idx = d == 0 ? rest : fmt::format("({} % {}u)", rest, size);
      expr += fmt::format("{}{} * {}u", expr.empty() ? "" : " + ", idx, o.strides[d]);
    }
    if (d > 0) rest = fmt::format("({} / {}u)", rest, size);
  }
  return expr.empty() ? "0u" : "(I)(" + expr + ")";
}

// Each step's value once, in order, as SSA (`const float v3 = ...;`): a value the DAG
// reads twice is named, not recomputed. `operand(k)` is operand k's value at the element.
template <typename OperandExpr>
std::string chain_body(const Chain& c, const std::string& indent, OperandExpr operand) {
  // Every operand read once per element, however many steps read it.
  std::string body;
  for (int k = 0; k < c.operand_count; ++k)
    body += fmt::format("{}const float x{} = {};\n", indent, k, operand(k));
  const auto ref = [&](int r) {
    return r >= kStepRef ? fmt::format("v{}", r - kStepRef) : fmt::format("x{}", r);
  };
  for (int k = 0; k < c.step_count; ++k) {
    const Step& s = c.steps[k];
    const std::string v = ref(c.input_of(k));
    std::string e;
    if (!s.binary) {
      e = fmt::format("pw::{}{{{{{}, {}}}}}({})", functor_name(static_cast<pw::UnaryOp>(s.op)),
                      exact_double(s.params.a), exact_double(s.params.b), v);
    } else {
      const std::string w = ref(s.operand);
      const char* fn = functor_name(static_cast<pw::BinaryOp>(s.op));
      e = s.operand_first ? fmt::format("pw::{}{{}}({}, {})", fn, w, v)
                          : fmt::format("pw::{}{{}}({}, {})", fn, v, w);
    }
    body += fmt::format("{}const float v{} = {};\n", indent, k, e);
  }
  return body;
}

// The buffer output x writes (x 0: the last step's value, `out`; then the extra ones)
// and the step whose value it is.
std::string out_name(int x) { return x == 0 ? "out" : fmt::format("out{}", x); }
int out_step(const Chain& c, int x) { return x == 0 ? c.step_count - 1 : c.extra_steps[x - 1]; }

std::string prologue(const Chain& c, bool wide, int threads) {
  std::string s =
      "#include \"ops/pointwise_functors.h\"\n"
      "namespace pw = tt::ops::pointwise;\n";
  s += fmt::format("typedef {} I;\n", wide ? "unsigned long long" : "unsigned");
  s += fmt::format("// chain [{}]\n", c.str());
  s += fmt::format("extern \"C\" __global__ void __launch_bounds__({}) {}(", threads,
                   kGeneratedKernelName);
  for (int k = 0; k < c.operand_count; ++k) s += fmt::format("const float* __restrict__ a{}, ", k);
  for (int x = 0; x <= c.extra_count; ++x)
    s += fmt::format("float* __restrict__ {}{}", out_name(x), x < c.extra_count ? ", " : ") {\n");
  return s;
}

bool needs_wide(const Chain& c) {
  int64_t m = numel_of(c);
  for (int k = 0; k < c.operand_count; ++k) m = std::max(m, max_offset(c, c.operands[k]) + 1);
  // Room for the index arithmetic past the end (base + u * threads, times vec).
  return m > (int64_t{1} << 30);
}

constexpr int kTile = 32, kTileRows = 8;  // the tiled form: 32 x 32 tiles, 32 x 8 threads

std::string tiled_source(const Chain& c) {
  const int r = c.rank;
  const int64_t rows = c.sizes[r - 2], cols = c.sizes[r - 1];
  std::string s = prologue(c, needs_wide(c), kTile * kTileRows);
  s += fmt::format(
      "  const I c0 = (I)blockIdx.x * {0}u, r0 = (I)blockIdx.y * {0}u, z = blockIdx.z;\n"
      "  const unsigned tx = threadIdx.x, ty = threadIdx.y;\n",
      kTile);
  // The outer dims' offset of each operand, from z.
  for (int k = 0; k < c.operand_count; ++k) {
    const Operand& o = c.operands[k];
    if (o.layout != Layout::kStrided) continue;
    std::string expr, rest = "z";
    for (int d = r - 3; d >= 0; --d) {
      if (o.strides[d] != 0 && c.sizes[d] > 1) {
        const std::string idx = d == 0 ? rest : fmt::format("({} % {}u)", rest, c.sizes[d]);
        expr += fmt::format("{}{} * {}u", expr.empty() ? "" : " + ", idx, o.strides[d]);
      }
      if (d > 0) rest = fmt::format("({} / {}u)", rest, c.sizes[d]);
    }
    s += fmt::format("  const I base{} = {};\n", k, expr.empty() ? "0u" : "(I)(" + expr + ")");
  }
  for (int k = 0; k < c.operand_count; ++k) {
    if (c.operands[k].layout == Layout::kScalar)
      s += fmt::format("  const float s{0} = __ldg(a{0});\n", k);
    if (!transposed(c, c.operands[k])) continue;
    // Threads along x read along the output's rows, where this operand is contiguous.
    s += fmt::format("  __shared__ float t{}[{}][{}];\n", k, kTile, kTile + 1);
    s += fmt::format(
        "#pragma unroll\n"
        "  for (int i = 0; i < {3}; ++i) {{\n"
        "    const I row = r0 + tx, col = c0 + ty + i * {4}u;\n"
        "    if (row < {1}u && col < {2}u) t{0}[ty + i * {4}][tx] = __ldg(a{0} + base{0} + row + "
        "col * {5}u);\n"
        "  }}\n",
        k, rows, cols, kTile / kTileRows, kTileRows, c.operands[k].strides[r - 1]);
  }
  s += "  __syncthreads();\n";
  s += fmt::format(
      "#pragma unroll\n"
      "  for (int i = 0; i < {2}; ++i) {{\n"
      "    const I row = r0 + ty + i * {3}u, col = c0 + tx;\n"
      "    if (row >= {0}u || col >= {1}u) continue;\n"
      "    const I e = (z * {0}u + row) * {1}u + col;\n",
      rows, cols, kTile / kTileRows, kTileRows);
  const auto operand = [&](int k) -> std::string {
    const Operand& o = c.operands[k];
    switch (o.layout) {
      case Layout::kFlat:
        return fmt::format("__ldg(a{} + e)", k);
      case Layout::kScalar:
        return fmt::format("s{}", k);
      case Layout::kRow:
        return fmt::format("__ldg(a{} + col)", k);
      case Layout::kStrided:
        if (transposed(c, o)) return fmt::format("t{}[tx][ty + i * {}]", k, kTileRows);
        return fmt::format("__ldg(a{0} + base{0} + row * {1}u + col * {2}u)", k, o.strides[r - 2],
                           o.strides[r - 1]);
    }
    return "0.f";
  };
  s += chain_body(c, "    ", operand);
  for (int x = 0; x <= c.extra_count; ++x)
    s += fmt::format("    {}[e] = v{};\n", out_name(x), out_step(c, x));
  s += "  }\n}\n";
  return s;
}

std::string linear_source(const Chain& c, const ChainConfig& cfg) {
  const int vec = cfg.vec == 4 ? 4 : 1, items = std::max(1, cfg.items), threads = cfg.threads;
  const int64_t n = numel_of(c), cols = c.sizes[c.rank - 1];
  std::string s = prologue(c, needs_wide(c), threads);
  s += fmt::format("  const I base = (I)blockIdx.x * {}u + threadIdx.x;\n",
                   static_cast<int64_t>(threads) * items);
  for (int k = 0; k < c.operand_count; ++k) {
    if (c.operands[k].layout == Layout::kScalar) {
      s += fmt::format("  const float s{0} = __ldg(a{0});\n", k);
    } else {
      s += fmt::format("  float r{}[{}][{}];\n", k, items, vec);
    }
  }
  // Every operand's loads first, for all items: the bytes in flight hide the latency.
  s += fmt::format(
      "#pragma unroll\n"
      "  for (int u = 0; u < {}; ++u) {{\n"
      "    const I e = (base + (I)u * {}u) * {}u;\n"
      "    if (e >= {}u) break;\n",
      items, threads, vec, n);
  for (int k = 0; k < c.operand_count; ++k) {
    const Operand& o = c.operands[k];
    std::string at;
    switch (o.layout) {
      case Layout::kScalar:
        continue;
      case Layout::kFlat:
        at = "e";
        break;
      case Layout::kRow:
        at = fmt::format("(e % {}u)", cols);
        break;
      case Layout::kStrided:
        at = strided_offset(c, o, "e");
        break;
    }
    const int64_t step = o.layout == Layout::kStrided ? o.strides[c.rank - 1] : 1;
    if (vec == 4 && generated_vector_load(c, k)) {
      s += fmt::format(
          "    {{ const float4 q = __ldg(reinterpret_cast<const float4*>(a{0} + {1}));\n"
          "      r{0}[u][0] = q.x; r{0}[u][1] = q.y; r{0}[u][2] = q.z; r{0}[u][3] = q.w; }}\n",
          k, at);
    } else if (vec == 4 && step == 0) {
      s += fmt::format(
          "    {{ const float q = __ldg(a{0} + {1});\n"
          "      r{0}[u][0] = q; r{0}[u][1] = q; r{0}[u][2] = q; r{0}[u][3] = q; }}\n",
          k, at);
    } else {
      s += fmt::format("    {{ const I o = {};\n", at);
      for (int j = 0; j < vec; ++j)
        s += fmt::format("      r{}[u][{}] = __ldg(a{} + o + {}u);\n", k, j, k, j * step);
      s += "    }\n";
    }
  }
  s += "  }\n";
  s += fmt::format(
      "#pragma unroll\n"
      "  for (int u = 0; u < {0}; ++u) {{\n"
      "    const I e = (base + (I)u * {1}u) * {2}u;\n"
      "    if (e >= {3}u) break;\n"
      "    float o[{4}][{2}];\n"
      "#pragma unroll\n"
      "    for (int j = 0; j < {2}; ++j) {{\n",
      items, threads, vec, n, c.extra_count + 1);
  const auto operand = [&](int k) -> std::string {
    if (c.operands[k].layout == Layout::kScalar) return fmt::format("s{}", k);
    return fmt::format("r{}[u][j]", k);
  };
  s += chain_body(c, "      ", operand);
  for (int x = 0; x <= c.extra_count; ++x)
    s += fmt::format("      o[{}][j] = v{};\n", x, out_step(c, x));
  s += "    }\n";
  for (int x = 0; x <= c.extra_count; ++x) {
    if (vec == 4) {
      s += fmt::format(
          "    *reinterpret_cast<float4*>({0} + e) = make_float4(o[{1}][0], o[{1}][1], o[{1}][2], "
          "o[{1}][3]);\n",
          out_name(x), x);
    } else {
      s += fmt::format("    {}[e] = o[{}][0];\n", out_name(x), x);
    }
  }
  s += "  }\n}\n";
  return s;
}

// Stand-ins for what the functors' header includes: NVRTC has no standard library, and
// core/convert.h's host half (errors, formatting) has no place in a kernel. They define
// exactly the names the header uses; the chain runs on float alone.
const std::string kCmath = "#pragma once\n";  // NVRTC declares the math functions itself
const std::string kCstdint = R"(#pragma once
typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long int64_t;
typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;
typedef unsigned long uint64_t; typedef unsigned long uintptr_t;
)";
const std::string kTypeTraits = R"(#pragma once
namespace std {
template <class T, T v> struct integral_constant { static constexpr T value = v; };
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <class A, class B> struct is_same : false_type {};
template <class A> struct is_same<A, A> : true_type {};
template <class A, class B> constexpr bool is_same_v = is_same<A, B>::value;
template <class T> struct remove_cv { typedef T type; };
template <class T> struct remove_cv<const T> { typedef T type; };
template <class T> struct remove_cv<volatile T> { typedef T type; };
template <class T> struct remove_cv<const volatile T> { typedef T type; };
template <class T> struct is_int_ : false_type {};
template <> struct is_int_<bool> : true_type {};
template <> struct is_int_<char> : true_type {};
template <> struct is_int_<signed char> : true_type {};
template <> struct is_int_<unsigned char> : true_type {};
template <> struct is_int_<short> : true_type {};
template <> struct is_int_<unsigned short> : true_type {};
template <> struct is_int_<int> : true_type {};
template <> struct is_int_<unsigned> : true_type {};
template <> struct is_int_<long> : true_type {};
template <> struct is_int_<unsigned long> : true_type {};
template <> struct is_int_<long long> : true_type {};
template <> struct is_int_<unsigned long long> : true_type {};
template <class T> struct is_integral : is_int_<typename remove_cv<T>::type> {};
template <class T> constexpr bool is_integral_v = is_integral<T>::value;
template <class T> struct is_fp_ : false_type {};
template <> struct is_fp_<float> : true_type {};
template <> struct is_fp_<double> : true_type {};
template <class T> struct is_floating_point : is_fp_<typename remove_cv<T>::type> {};
template <class T> constexpr bool is_floating_point_v = is_floating_point<T>::value;
template <class T> constexpr bool is_arithmetic_v = is_integral_v<T> || is_floating_point_v<T>;
template <class T, bool = is_arithmetic_v<T>> struct is_signed : false_type {};
template <class T> struct is_signed<T, true> : integral_constant<bool, T(-1) < T(0)> {};
template <class T> constexpr bool is_signed_v = is_signed<T>::value;
template <class T> constexpr bool is_unsigned_v = is_arithmetic_v<T> && !is_signed_v<T>;
template <class T> struct make_unsigned { typedef T type; };
template <> struct make_unsigned<char> { typedef unsigned char type; };
template <> struct make_unsigned<signed char> { typedef unsigned char type; };
template <> struct make_unsigned<short> { typedef unsigned short type; };
template <> struct make_unsigned<int> { typedef unsigned type; };
template <> struct make_unsigned<long> { typedef unsigned long type; };
template <> struct make_unsigned<long long> { typedef unsigned long long type; };
template <class T> using make_unsigned_t = typename make_unsigned<T>::type;
template <class T> struct remove_pointer { typedef T type; };
template <class T> struct remove_pointer<T*> { typedef T type; };
template <class T> using remove_pointer_t = typename remove_pointer<T>::type;
template <class...> using void_t = void;
}  // namespace std
)";
const std::string kUtility = R"(#pragma once
namespace std {
template <class T> T&& declval() noexcept;
}  // namespace std
)";
const std::string kConvert = R"(#pragma once
#include <cstdint>
#include <type_traits>
namespace tt {
enum class DType { F32, F64, I64, I32, U8, Bool };
template <typename T> struct DTypeOf;
bool dtype_has_kernels(DType t);
template <typename Fn> auto visit_dtype(DType t, const char* what, Fn&& fn) -> decltype(fn(0.f));
template <typename Dst, typename Src>
__host__ __device__ __forceinline__ Dst convert_value(Src v) { return static_cast<Dst>(v); }
}  // namespace tt
)";

}  // namespace

bool generated_tiled(const Chain& c) {
  for (int k = 0; k < c.operand_count; ++k)
    if (transposed(c, c.operands[k])) return true;
  return false;
}

bool generated_vector_load(const Chain& c, int k) {
  const Operand& o = c.operands[k];
  switch (o.layout) {
    case Layout::kFlat:
    case Layout::kRow:
      return true;
    case Layout::kScalar:
      return false;
    case Layout::kStrided:
      if (o.strides[c.rank - 1] != 1) return false;
      for (int d = 0; d + 1 < c.rank; ++d)
        if (c.sizes[d] > 1 && o.strides[d] % 4 != 0) return false;
      return true;
  }
  return false;
}

std::string generated_unsupported(const Chain& c, const ChainConfig& cfg) {
  if (c.step_count == 0) return "it has no steps";
  for (int k = 0; k < c.operand_count; ++k) {
    const Operand& o = c.operands[k];
    if (o.layout != Layout::kStrided) continue;
    for (int d = 0; d < c.rank; ++d)
      if (o.strides[d] < 0) return fmt::format("operand {} has a negative stride", k);
  }
  const GeneratedLaunch l = generated_launch(c, cfg);
  if (l.grid[0] > 0x7fffffffu || l.grid[1] > 65535u || l.grid[2] > 65535u)
    return fmt::format("its grid {} x {} x {} is past CUDA's limits", l.grid[0], l.grid[1],
                       l.grid[2]);
  return "";
}

GeneratedLaunch generated_launch(const Chain& c, const ChainConfig& cfg) {
  GeneratedLaunch l;
  if (generated_tiled(c)) {
    const int r = c.rank;
    int64_t outer = 1;
    for (int d = 0; d + 2 < r; ++d) outer *= c.sizes[d];
    l.block[0] = kTile;
    l.block[1] = kTileRows;
    l.grid[0] = static_cast<unsigned>((c.sizes[r - 1] + kTile - 1) / kTile);
    l.grid[1] =
        static_cast<unsigned>(std::min<int64_t>((c.sizes[r - 2] + kTile - 1) / kTile, 1 << 30));
    l.grid[2] = static_cast<unsigned>(std::min<int64_t>(outer, 1 << 30));
    return l;
  }
  const int64_t per_block =
      static_cast<int64_t>(cfg.threads) * (cfg.vec == 4 ? 4 : 1) * std::max(1, cfg.items);
  l.block[0] = static_cast<unsigned>(cfg.threads);
  l.grid[0] = static_cast<unsigned>(
      std::min<int64_t>((numel_of(c) + per_block - 1) / per_block, (int64_t{1} << 31) - 1));
  return l;
}

std::string generated_source(const Chain& c, const ChainConfig& cfg) {
  return generated_tiled(c) ? tiled_source(c) : linear_source(c, cfg);
}

const std::vector<SourceHeader>& generated_headers() {
  static const std::vector<SourceHeader> headers = {
      {"ops/pointwise_functors.h", &functors_text()},
      {"core/convert.h", &kConvert},
      {"cmath", &kCmath},
      {"cstdint", &kCstdint},
      {"type_traits", &kTypeTraits},
      {"utility", &kUtility},
  };
  return headers;
}

}  // namespace tt::ops::cuda::chain
