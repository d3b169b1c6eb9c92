// The CUDA reductions, softmax, rms_norm and bmm (ops/cuda/cuda_ops_reduce.h) against a
// double-precision host reference written here: the tensor functions on awkward
// shapes (one row, odd sizes, rows longer than a block, rows split over blocks,
// non-contiguous and misaligned views, several dims, keepdim, argmax ties and NaN),
// and the family's spaces. Every config of every space runs in tests/op_table_test.cpp
// (the reduction, softmax and rms_norm rows carry the shapes that reach each kernel's
// edges), outputs poisoned with NaN first so that a variant that skips an element fails.
// Tolerance: relative L2 error 1e-5 (the strict-precision bound); argmax/argmin exact.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "core/tensor.h"
#include "support/gpu_test.h"
#include "support/row_norm_cases.h"
#include "support/test_util.h"

#if TT_CUDA
#include "autotune/lookup.h"
#include "autotune/space.h"
#include "autotune/space_cache.h"
#include "core/cuda/device.h"
#include "core/cuda/stream.h"
#include "ops/cuda/cuda_ops_reduce.h"
#include "ops/cuda/reduce/reduce.h"
#endif

using tt::Device;
using tt::DType;
using tt::Shape;
using tt::Tensor;

namespace {

using namespace tt::test;  // kStrictTol, kGpu (support/gpu_test.h)

// ---------------------------------------------------------------------------
// Double-precision host reference.

enum class Red { kSum, kMean, kVar, kStd, kAmax, kAmin, kArgmax, kArgmin };

// The elements of each output of a reduction of `x` over `dims`, in the input's
// logical order, and (for the arg ops) their positions along the single dim.
struct Groups {
  Shape out_shape;
  std::vector<std::vector<double>> values;
  std::vector<std::vector<int64_t>> positions;
};

Groups group_elements(const Tensor& x, const std::vector<int64_t>& dims, bool keepdim) {
  const Shape& sizes = x.sizes();
  const int64_t rank = static_cast<int64_t>(sizes.size());
  std::vector<bool> reduced(static_cast<size_t>(rank), false);
  for (int64_t d : dims) reduced[static_cast<size_t>(d)] = true;
  Groups g;
  int64_t outputs = 1;
  for (int64_t d = 0; d < rank; ++d) {
    if (!reduced[d]) {
      g.out_shape.push_back(sizes[d]);
      outputs *= sizes[d];
    } else if (keepdim) {
      g.out_shape.push_back(1);
    }
  }
  g.values.resize(static_cast<size_t>(outputs));
  g.positions.resize(static_cast<size_t>(outputs));
  const std::vector<double> v = x.to_vector<double>();
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (size_t flat = 0; flat < v.size(); ++flat) {
    int64_t o = 0, pos = 0;
    for (int64_t d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        o = o * sizes[d] + idx[d];
      } else {
        pos = idx[d];
      }
    }
    g.values[o].push_back(v[flat]);
    g.positions[o].push_back(pos);
    for (int64_t d = rank - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return g;
}

Tensor ref_reduce(Red op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
                  int64_t correction = 1) {
  const Groups g = group_elements(x, dims, keepdim);
  std::vector<double> out;
  std::vector<int64_t> arg;
  for (size_t o = 0; o < g.values.size(); ++o) {
    const std::vector<double>& v = g.values[o];
    const double n = static_cast<double>(v.size());
    double sum = 0;
    for (double e : v) sum += e;
    const double mean = sum / n;
    double m2 = 0;
    for (double e : v) m2 += (e - mean) * (e - mean);
    switch (op) {
      case Red::kSum:
        out.push_back(sum);
        break;
      case Red::kMean:
        out.push_back(mean);
        break;
      case Red::kVar:
      case Red::kStd: {
        const double var = m2 / std::max(n - static_cast<double>(correction), 0.0);
        out.push_back(op == Red::kStd ? std::sqrt(var) : var);
        break;
      }
      case Red::kAmax:
      case Red::kAmin: {
        double best = v[0];
        for (double e : v) {
          if (std::isnan(best)) break;
          if (std::isnan(e) || (op == Red::kAmax ? e > best : e < best)) best = e;
        }
        out.push_back(best);
        break;
      }
      case Red::kArgmax:
      case Red::kArgmin: {
        size_t best = 0;
        for (size_t i = 1; i < v.size() && !std::isnan(v[best]); ++i) {
          if (std::isnan(v[i]) || (op == Red::kArgmax ? v[i] > v[best] : v[i] < v[best])) best = i;
        }
        arg.push_back(g.positions[o][best]);
        break;
      }
    }
  }
  if (op == Red::kArgmax || op == Red::kArgmin) return Tensor::from_vector(arg, g.out_shape);
  return Tensor::from_vector(out, g.out_shape);
}

// softmax / log_softmax over `dim` in double.
Tensor ref_softmax(const Tensor& x, int64_t dim, bool log) {
  const Shape& s = x.sizes();
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < dim; ++d) outer *= s[d];
  for (size_t d = static_cast<size_t>(dim) + 1; d < s.size(); ++d) inner *= s[d];
  const int64_t n = s[dim];
  std::vector<double> v = x.to_vector<double>();
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t i = 0; i < inner; ++i) {
      const auto at = [&](int64_t c) -> double& { return v[(o * n + c) * inner + i]; };
      double m = -INFINITY;
      for (int64_t c = 0; c < n; ++c) m = std::max(m, at(c));
      double sum = 0;
      for (int64_t c = 0; c < n; ++c) sum += std::exp(at(c) - m);
      for (int64_t c = 0; c < n; ++c)
        at(c) = log ? at(c) - m - std::log(sum) : std::exp(at(c) - m) / sum;
    }
  }
  return Tensor::from_vector(v, s);
}

// Reference self-checks run everywhere (they guard the GPU comparisons below).
TEST(CudaReduceReference, HostReferenceGoldenValues) {
  const Tensor x = Tensor::from_vector<float>({1, 5, 5, 2, -1, 7}, {2, 3});
  EXPECT_EQ(ref_reduce(Red::kSum, x, {1}, false).to_vector<double>(), (std::vector<double>{11, 8}));
  EXPECT_EQ(ref_reduce(Red::kAmax, x, {0}, true).sizes(), (Shape{1, 3}));
  EXPECT_EQ(ref_reduce(Red::kArgmax, x, {1}, false).to_vector<int64_t>(),
            (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(ref_reduce(Red::kArgmin, x, {0}, false).to_vector<int64_t>(),
            (std::vector<int64_t>{0, 1, 0}));
  // sum 19, sum of squares 105 over 6 elements.
  EXPECT_NEAR(ref_reduce(Red::kVar, x, {0, 1}, false, 0).item(),
              105.0 / 6 - (19.0 / 6) * (19.0 / 6), 1e-12);
  const Tensor sm = ref_softmax(Tensor::from_vector<float>({0, std::log(3.f)}, {1, 2}), 1, false);
  EXPECT_NEAR(sm.to_vector<double>()[0], 0.25, 1e-7);
}

#if TT_CUDA
// rms_norm over the trailing `len` elements, in double.
Tensor ref_rms_norm(const Tensor& x, int64_t len, const Tensor& w, double eps) {
  std::vector<double> v = x.to_vector<double>();
  const std::vector<double> wv = w.defined() ? w.to_vector<double>() : std::vector<double>();
  for (size_t r = 0; r < v.size() / static_cast<size_t>(len); ++r) {
    double* row = v.data() + r * len;
    double ss = 0;
    for (int64_t c = 0; c < len; ++c) ss += row[c] * row[c];
    const double scale = 1 / std::sqrt(ss / static_cast<double>(len) + eps);
    for (int64_t c = 0; c < len; ++c) row[c] *= scale * (wv.empty() ? 1.0 : wv[c]);
  }
  return Tensor::from_vector(v, x.sizes());
}

Tensor ref_bmm(const Tensor& a, const Tensor& b) {
  const int64_t batch = a.size(0), m = a.size(1), k = a.size(2), n = b.size(2);
  const std::vector<double> av = a.to_vector<double>(), bv = b.to_vector<double>();
  std::vector<double> out(static_cast<size_t>(batch * m * n), 0.0);
  for (int64_t p = 0; p < batch; ++p)
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double acc = 0;
        for (int64_t q = 0; q < k; ++q) acc += av[(p * m + i) * k + q] * bv[(p * k + q) * n + j];
        out[(p * m + i) * n + j] = acc;
      }
  return Tensor::from_vector(out, {batch, m, n});
}

// A view of t's storage with the given geometry (stride 0 for a broadcast batch).
Tensor strided_view(const Tensor& t, const Shape& sizes, const Shape& strides, int64_t offset) {
  auto impl = std::make_shared<tt::TensorImpl>();
  impl->storage = t.storage();
  impl->sizes = sizes;
  impl->strides = strides;
  impl->offset = offset;
  impl->dtype = t.dtype();
  return Tensor(impl);
}

namespace red = tt::ops::cuda::reduce;
namespace tcu = tt::ops::cuda;

Tensor run_red(Red op, const Tensor& x, const std::vector<int64_t>& dims, bool keepdim,
               int64_t correction = 1) {
  switch (op) {
    case Red::kSum:
      return tcu::sum(x, dims, keepdim);
    case Red::kMean:
      return tcu::mean(x, dims, keepdim);
    case Red::kVar:
      return tcu::var(x, dims, correction, keepdim);
    case Red::kStd:
      return tcu::std(x, dims, correction, keepdim);
    case Red::kAmax:
      return tcu::amax(x, dims, keepdim);
    case Red::kAmin:
      return tcu::amin(x, dims, keepdim);
    case Red::kArgmax:
      return tcu::argmax(x, dims.at(0), keepdim);
    case Red::kArgmin:
      return tcu::argmin(x, dims.at(0), keepdim);
  }
  return Tensor();
}

const char* red_name(Red op) {
  static const char* names[] = {"sum", "mean", "var", "std", "amax", "amin", "argmax", "argmin"};
  return names[static_cast<int>(op)];
}

bool is_arg(Red op) { return op == Red::kArgmax || op == Red::kArgmin; }

void expect_match(const Tensor& got, const Tensor& want, Red op) {
  ASSERT_EQ(got.sizes(), want.sizes());
  if (is_arg(op)) {
    EXPECT_EQ(got.dtype(), DType::I64);
    EXPECT_EQ(got.to_vector<int64_t>(), want.to_vector<int64_t>());
  } else {
    EXPECT_EQ(got.dtype(), DType::F32);
    // N - correction <= 0 gives nan (0/0) as in PyTorch: the nan elements must be the
    // same ones; the others are compared by relative L2 error.
    std::vector<float> g = got.to_vector<float>(), w = want.to_vector<float>();
    for (size_t i = 0; i < w.size(); ++i) {
      EXPECT_EQ(std::isnan(g[i]), std::isnan(w[i])) << "element " << i;
      if (std::isnan(w[i])) g[i] = w[i] = 0.f;
    }
    const Shape flat{static_cast<int64_t>(w.size())};
    EXPECT_LE(tt::test::rel_l2(Tensor::from_vector(g, flat), Tensor::from_vector(w, flat)),
              kStrictTol);
  }
}

struct ReduceCase {
  Shape shape;
  std::vector<int64_t> dims;
};

// ---- the spaces (no GPU needed) ----

TEST(CudaReduceSpaces, ProblemKeysAndDefaults) {
  EXPECT_EQ(red::inner_problem_key(red::Op::kArgmax, {8192, 4096, 4}),
            "op=argmax,rows=8192,cols=4096,align=16B,precision=strict");
  EXPECT_EQ(red::outer_problem_key(red::Op::kMean, {2, 100, 6, 2}),
            "op=mean,outer=2,rows=100,inner=6,align=8B,precision=strict");
  EXPECT_EQ(red::row_problem_key({32768, 512, 4}),
            "rows=32768,cols=512,align=16B,precision=strict");
  // The attention rows fit one warp's registers, the 4096-float rows one block's,
  // longer rows stream.
  EXPECT_EQ(red::RowConfig::default_for({32768, 512, 4}).to_config().str(),
            "impl=reg,threads=128,lanes=32,vec=4,items=4");
  EXPECT_EQ(red::RowConfig::default_for({8192, 4096, 4}).to_config().str(),
            "impl=reg,threads=256,lanes=256,vec=4,items=4");
  EXPECT_EQ(red::RowConfig::default_for({4, 40000, 4}).to_config().str(),
            "impl=stream,threads=512,lanes=512,vec=4,items=4");
  EXPECT_EQ(red::RowConfig::default_for({3, 7, 4}).vec, 1);
}

TEST(CudaReduceSpaces, EveryEnumeratedConfigIsValidAndDefaultsAreInTheSpace) {
  const auto limits = tt::cuda::hopper_limits();
  for (int64_t rows : {1, 3, 8192}) {
    for (int64_t cols : {1, 2, 3, 7, 64, 100, 512, 4096, 5000, 16384, 40001, 1 << 20}) {
      for (int align : {1, 2, 4}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols) + " align " +
                     std::to_string(align));
        const red::InnerProblem ip{rows, cols, align};
        const auto is = red::inner_space(ip, limits);
        EXPECT_TRUE(is.is_valid(is.default_config()));
        for (const auto& c : is.enumerate())
          EXPECT_TRUE(red::InnerConfig::from_config(c).valid(ip));
        const red::OuterProblem op{rows, cols, cols % 5 + 1, align};
        const auto os = red::outer_space(op, limits);
        EXPECT_TRUE(os.is_valid(os.default_config()));
        for (const auto& c : os.enumerate())
          EXPECT_TRUE(red::OuterConfig::from_config(c).valid(op));
        const red::RowProblem rp{rows, cols, align};
        const auto rs = red::row_space(red::RowMap::kSoftmax, rp, limits);
        EXPECT_TRUE(rs.is_valid(rs.default_config()));
        const auto all = rs.enumerate();
        EXPECT_FALSE(all.empty());
        for (const auto& c : all) {
          const red::RowConfig rc = red::RowConfig::from_config(c);
          EXPECT_TRUE(rc.valid(rp));
          EXPECT_EQ(red::RowConfig::from_config(rc.to_config()), rc);
        }
      }
    }
  }
  EXPECT_EQ(tt::test::error_of([] {
              red::RowConfig::from_config(tt::autotune::Config::parse("impl=own,threads=1"));
            }),
            "row map config impl=own,threads=1: impl must be one of reg|stream but got 'own'");
}

const Red kAllOps[] = {Red::kSum, Red::kMean, Red::kVar, Red::kStd, Red::kAmax, Red::kAmin};

TEST(CudaReduce, ReductionsMatchReference) {
  TT_REQUIRE_CUDA();
  const ReduceCase cases[] = {
      {{1, 7}, {1}},         {{5, 13}, {0}},      {{5, 13}, {1}},
      {{5, 13}, {0, 1}},     {{3, 4, 5}, {0, 2}}, {{3, 4, 5}, {1}},
      {{3, 4, 5}, {0, 1}},   {{3, 4, 5}, {1, 2}}, {{2, 3, 1028}, {2}},
      {{1, 70001}, {1}},     {{4100, 3}, {0}},    {{64, 33, 8}, {1}},
      {{2, 1, 3}, {1}},      {{1}, {0}},          {{2, 3, 4, 5}, {1, 3}},
      {{6, 1, 300}, {0, 2}}, {{3, 5000, 4}, {1}}, {{1, 20000, 2}, {0, 1}},
  };
  for (const auto& c : cases) {
    const Tensor x = Tensor::randn(c.shape, 11);
    const Tensor xg = x.to(kGpu);
    for (Red op : kAllOps) {
      for (bool keepdim : {false, true}) {
        SCOPED_TRACE(std::string(red_name(op)) + " of " + tt::shape_str(c.shape) +
                     (keepdim ? " keepdim" : ""));
        expect_match(run_red(op, xg, c.dims, keepdim), ref_reduce(op, x, c.dims, keepdim), op);
      }
    }
  }
}

TEST(CudaReduce, VarianceCorrectionAndLargeMean) {
  TT_REQUIRE_CUDA();
  // A mean 1000 times the spread: two-pass/Chan statistics keep the digits that a
  // sum of squares would cancel.
  const Tensor x = Tensor::uniform({7, 3001}, 999.0, 1001.0, 5);
  for (int64_t corr : {0, 1, 2}) {
    for (Red op : {Red::kVar, Red::kStd}) {
      for (const std::vector<int64_t>& dims :
           {std::vector<int64_t>{1}, std::vector<int64_t>{0}, std::vector<int64_t>{0, 1}}) {
        SCOPED_TRACE(std::string(red_name(op)) + " correction " + std::to_string(corr));
        expect_match(run_red(op, x.to(kGpu), dims, false, corr),
                     ref_reduce(op, x, dims, false, corr), op);
      }
    }
  }
  // N - correction <= 0: nan (0/0) as PyTorch.
  const Tensor one = tcu::var(Tensor::from_vector<float>({3.f}, {1}).to(kGpu), {0}, 1, false);
  EXPECT_TRUE(std::isnan(one.item()));
}

TEST(CudaReduce, NonContiguousAndMisalignedViews) {
  TT_REQUIRE_CUDA();
  const Tensor base = Tensor::randn({6, 10, 12}, 21);
  const Tensor bg = base.to(kGpu);
  struct View {
    Tensor cpu, gpu;
  };
  const View views[] = {
      {base.transpose(0, 2), bg.transpose(0, 2)},
      {base.permute({1, 2, 0}), bg.permute({1, 2, 0})},
      {base.narrow(2, 1, 10), bg.narrow(2, 1, 10)},  // misaligned rows
      {base.narrow(2, 1, 11).transpose(1, 2), bg.narrow(2, 1, 11).transpose(1, 2)},
      // An expanded (stride 0) dim: no dense order, so a copy.
      {strided_view(base, {6, 4, 12}, {120, 0, 1}, 0),
       strided_view(bg, {6, 4, 12}, {120, 0, 1}, 0)},
  };
  for (const View& v : views) {
    for (const std::vector<int64_t>& dims :
         {std::vector<int64_t>{0}, std::vector<int64_t>{1}, std::vector<int64_t>{2},
          std::vector<int64_t>{0, 2}, std::vector<int64_t>{0, 1, 2}}) {
      for (Red op : {Red::kSum, Red::kVar, Red::kAmax, Red::kArgmin}) {
        if (is_arg(op) && dims.size() != 1) continue;
        SCOPED_TRACE(std::string(red_name(op)) + " of a view " + tt::shape_str(v.cpu.sizes()));
        expect_match(run_red(op, v.gpu, dims, true), ref_reduce(op, v.cpu, dims, true), op);
      }
    }
  }
}

TEST(CudaReduce, ArgmaxTiesAndNan) {
  TT_REQUIRE_CUDA();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  // Rows: ties (first index wins), NaN (the first NaN wins, for argmin too), all -inf.
  const Tensor x =
      Tensor::from_vector<float>({1, 3,   3, 2,   3,  //
                                  0, nan, 5, nan, -1, -inf, -inf, -inf, -inf, -inf, 2, 2, 2, 2, 2},
                                 {4, 5});
  const Tensor xg = x.to(kGpu);
  EXPECT_EQ(tcu::argmax(xg, 1, false).to_vector<int64_t>(), (std::vector<int64_t>{1, 1, 0, 0}));
  EXPECT_EQ(tcu::argmin(xg, 1, false).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 0}));
  EXPECT_EQ(tcu::argmax(xg, 0, true).to_vector<int64_t>(), (std::vector<int64_t>{3, 1, 1, 1, 0}));
  const Tensor mx = tcu::amax(xg, {1}, false);
  EXPECT_TRUE(std::isnan(mx.to_vector<double>()[1]));
  EXPECT_EQ(mx.to_vector<double>()[2], -INFINITY);
  EXPECT_TRUE(std::isnan(tcu::amin(xg, {0, 1}, false).item()));

  // Long rows, split over blocks: ties far apart, and a NaN after the max.
  std::vector<float> v(3 * 70000, 0.f);
  v[40000] = v[60000] = 7.f;                        // row 0: 40000
  v[70000 + 5] = 7.f, v[70000 + 69999] = nan;       // row 1: 69999
  v[140000 + 69990] = -1.f, v[140000 + 12] = -1.f;  // row 2 (argmin): 12
  const Tensor big = Tensor::from_vector(v, {3, 70000}).to(kGpu);
  EXPECT_EQ(tcu::argmax(big, 1, false).to_vector<int64_t>(),
            (std::vector<int64_t>{40000, 69999, 0}));
  EXPECT_EQ(tcu::argmin(big, 1, false).to_vector<int64_t>()[2], 12);
  // The same as a column reduction (outer kernel, rows split over blocks).
  const Tensor col = tcu::argmax(big.transpose(0, 1).contiguous(), 0, false);
  EXPECT_EQ(col.to_vector<int64_t>(), (std::vector<int64_t>{40000, 69999, 0}));
}

TEST(CudaReduce, EmptyReductions) {
  TT_REQUIRE_CUDA();
  const Tensor x = Tensor::empty({3, 0}, DType::F32, kGpu);
  EXPECT_EQ(tcu::sum(x, {1}, false).to_vector<double>(), (std::vector<double>{0, 0, 0}));
  EXPECT_TRUE(std::isnan(tcu::mean(x, {1}, false).to_vector<double>()[0]));
  EXPECT_EQ(tcu::sum(x, {0}, true).sizes(), (Shape{1, 0}));
  EXPECT_EQ(tt::test::error_of([&] { tcu::amax(x, {1}, false); }),
            "amax: cannot reduce over dims of total size 0 (the reduction has no identity)");
}

// ---- softmax, log_softmax ----

TEST(CudaReduce, SoftmaxMatchesReference) {
  TT_REQUIRE_CUDA();
  const std::pair<Shape, int64_t> cases[] = {
      {{1, 1}, 1},    {{3, 7}, 1},    {{64, 512}, 1}, {{2, 5000}, 1}, {{3, 20001}, 1},
      {{4, 6, 5}, 1}, {{4, 6, 5}, 0}, {{8, 33}, 0},   {{5}, 0},       {{2, 1, 3}, 1},
  };
  for (const auto& [shape, dim] : cases) {
    // Offset far from 0: without the max subtracted exp() would overflow.
    const Tensor x = Tensor::uniform(shape, 80.0, 120.0, 7);
    for (bool log : {false, true}) {
      SCOPED_TRACE(std::string(log ? "log_softmax " : "softmax ") + tt::shape_str(shape) + " dim " +
                   std::to_string(dim));
      const Tensor got = log ? tcu::log_softmax(x.to(kGpu), dim) : tcu::softmax(x.to(kGpu), dim);
      EXPECT_EQ(got.sizes(), shape);
      EXPECT_LE(tt::test::rel_l2(got, ref_softmax(x, dim, log)), kStrictTol);
    }
  }
  // A transposed view, and -inf entries (which get probability 0).
  const Tensor base = Tensor::randn({9, 40}, 8);
  EXPECT_LE(tt::test::rel_l2(tcu::softmax(base.to(kGpu).transpose(0, 1), 1),
                             ref_softmax(base.transpose(0, 1).contiguous(), 1, false)),
            kStrictTol);
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor withinf = Tensor::from_vector<float>({-inf, 0.f, -inf, 1.f}, {1, 4});
  const std::vector<double> sm = tcu::softmax(withinf.to(kGpu), 1).to_vector<double>();
  EXPECT_EQ(sm[0], 0.0);
  EXPECT_NEAR(sm[3], 1 / (1 + std::exp(-1.0)), 1e-7);
}

// ---- rms_norm (layer_norm: tests/cuda_norm_test.cpp) ----

TEST(CudaReduce, RmsNormMatchesReference) {
  TT_REQUIRE_CUDA();
  for (const tt::test::RowNormCase& c : tt::test::row_norm_cases()) {
    SCOPED_TRACE(tt::shape_str(c.shape));
    Tensor w;
    if (c.affine) w = Tensor::uniform({c.len}, 0.5, 1.5, 62);
    const Tensor wg = c.affine ? w.to(kGpu) : w;
    const Tensor y = Tensor::randn(c.shape, 64);
    EXPECT_LE(tt::test::rel_l2(tcu::rms_norm(y.to(kGpu), c.len, wg, 1.1920929e-07),
                               ref_rms_norm(y, c.len, w, 1.1920929e-07)),
              kStrictTol);
  }
  // Strided input and a weight whose address is not 16-byte aligned.
  const tt::test::StridedRowNorm s;
  EXPECT_LE(tt::test::rel_l2(tcu::rms_norm(s.base.to(kGpu).narrow(1, 1, 64), 64,
                                           s.wbase.to(kGpu).narrow(0, 1, 64), 1e-5),
                             ref_rms_norm(s.x().contiguous(), 64, s.w().contiguous(), 1e-5)),
            kStrictTol);
}

// ---- bmm ----

TEST(CudaReduce, BmmMatchesReference) {
  TT_REQUIRE_CUDA();
  const Tensor a = Tensor::randn({3, 5, 7}, 71), b = Tensor::randn({3, 7, 4}, 72);
  const Tensor ag = a.to(kGpu), bg = b.to(kGpu);
  EXPECT_LE(tt::test::rel_l2(tcu::bmm(ag, bg), ref_bmm(a, b)), kStrictTol);

  // Transposed views of both operands (no copies: op T).
  const Tensor at = Tensor::randn({3, 7, 5}, 73), bt = Tensor::randn({3, 4, 7}, 74);
  EXPECT_LE(
      tt::test::rel_l2(tcu::bmm(at.to(kGpu).transpose(1, 2), bt.to(kGpu).transpose(1, 2)),
                       ref_bmm(at.transpose(1, 2).contiguous(), bt.transpose(1, 2).contiguous())),
      kStrictTol);

  // A broadcast batch (stride 0) for a, then for b.
  const Tensor a1 = Tensor::randn({1, 5, 7}, 75);
  const Tensor a1g = a1.to(kGpu);
  const Tensor abcast = strided_view(a1g, {3, 5, 7}, {0, 7, 1}, 0);
  const Tensor abcast_cpu = strided_view(a1, {3, 5, 7}, {0, 7, 1}, 0).contiguous();
  EXPECT_LE(tt::test::rel_l2(tcu::bmm(abcast, bg), ref_bmm(abcast_cpu, b)), kStrictTol);
  const Tensor b1 = Tensor::randn({1, 7, 4}, 76);
  const Tensor bbcast = strided_view(b1.to(kGpu), {3, 7, 4}, {0, 4, 1}, 0);
  EXPECT_LE(tt::test::rel_l2(tcu::bmm(ag, bbcast),
                             ref_bmm(a, strided_view(b1, {3, 7, 4}, {0, 4, 1}, 0).contiguous())),
            kStrictTol);

  // Neither unit stride (a copy), a misaligned start, m = 1, n = 1, k = 1, k = 0.
  const Tensor wide = Tensor::randn({3, 10, 14}, 77);
  const Tensor every_other = strided_view(wide.to(kGpu), {3, 5, 7}, {140, 28, 2}, 1);
  EXPECT_LE(
      tt::test::rel_l2(tcu::bmm(every_other, bg),
                       ref_bmm(strided_view(wide, {3, 5, 7}, {140, 28, 2}, 1).contiguous(), b)),
      kStrictTol);
  for (const Shape& mnk : {Shape{1, 9, 33}, Shape{17, 1, 8}, Shape{6, 5, 1}, Shape{64, 48, 96}}) {
    const Tensor x = Tensor::randn({2, mnk[0], mnk[2]}, 78),
                 y = Tensor::randn({2, mnk[2], mnk[1]}, 79);
    SCOPED_TRACE(tt::shape_str(mnk));
    EXPECT_LE(tt::test::rel_l2(tcu::bmm(x.to(kGpu), y.to(kGpu)), ref_bmm(x, y)), kStrictTol);
  }
  const Tensor z = tcu::bmm(Tensor::empty({2, 3, 0}, DType::F32, kGpu),
                            Tensor::empty({2, 0, 4}, DType::F32, kGpu));
  EXPECT_EQ(z.sizes(), (Shape{2, 3, 4}));
  EXPECT_EQ(tt::test::max_abs_diff(z, Tensor::zeros({2, 3, 4})), 0.0);
}

// Every cuBLASLt algorithm the bmm space offers on this device.
TEST(CudaReduce, EveryBmmAlgorithmMatches) {
  TT_REQUIRE_CUDA();
  const Tensor a = Tensor::randn({4, 64, 96}, 81), b = Tensor::randn({4, 96, 80}, 82);
  const Tensor want = ref_bmm(a, b);
  const Tensor ag = a.to(kGpu), bg = b.to(kGpu);
  tt::autotune::clear_configs_used();
  tcu::bmm(ag, bg);  // the lookup that builds the space
  const auto used = tt::autotune::configs_used();
  const auto it = std::find_if(used.begin(), used.end(),
                               [](const tt::autotune::UsedConfig& u) { return u.kernel == "bmm"; });
  ASSERT_NE(it, used.end());
  const auto ts = tt::autotune::space_for("bmm", it->problem, 0);
  ASSERT_NE(ts.space, nullptr);
  for (const auto& c : ts.space->enumerate()) {
    SCOPED_TRACE(c.str());
    tt::autotune::ScopedConfigOverride force("bmm", c, it->problem);
    EXPECT_LE(tt::test::rel_l2(tcu::bmm(ag, bg), want), kStrictTol);
  }
}

#endif  // TT_CUDA

}  // namespace
