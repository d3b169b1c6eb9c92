// Fuzzes the ops' shape checks (the op front end, ops/ops.h): the input picks an op from
// the table below, up to three tensors' shapes (rank 0-4, sizes 0-3 mostly, and now
// and then a negative or huge size) and two dims or sizes (any int64). Tensors whose
// shape is valid and small are built for real and the op runs on the CPU; otherwise
// the factory must refuse. Only tt::Error may leave; a result's shape must hold its
// elements (a crash, a sanitizer report or another exception is a finding).
// New ops: add a row to kOps.
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"
#include "ops/ops.h"
#include "tests/fuzz/fuzz_util.h"

namespace {

using tt::Shape;
using tt::Tensor;
namespace ops = tt::ops;

struct Args {
  Tensor a, b, c;
  int64_t i = 0, j = 0;
};

using OpFn = std::function<std::vector<Tensor>(const Args&)>;

const std::vector<OpFn> kOps = {
    [](const Args& x) { return std::vector<Tensor>{ops::add(x.a, x.b)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::where(x.c.to(tt::DType::U8), x.a, x.b)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::matmul(x.a, x.b)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::bmm(x.a, x.b)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::linear(x.a, x.b, x.c)}; },
    [](const Args& x) {
      return std::vector<Tensor>{ops::sum(x.a, {x.i, x.j}, x.i % 2)};
    },
    [](const Args& x) { return std::vector<Tensor>{ops::var(x.a, {x.i}, true, x.j % 2)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::argmax(x.a, x.i, x.j % 2)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::softmax(x.a, x.i)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::layer_norm(x.a, x.b.sizes(), x.b, x.c)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::rms_norm(x.a, x.b.sizes(), x.b)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::group_norm(x.a, x.i, x.b, x.c)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::instance_norm(x.a, 1e-5, x.b, x.c)}; },
    [](const Args& x) {
      return std::vector<Tensor>{
          ops::batch_norm(x.a, x.b.clone(), x.c.clone(), Tensor(), Tensor(), x.i % 2, 0.1, 1e-5)};
    },
    [](const Args& x) {
      return std::vector<Tensor>{ops::cat({x.a, x.b, x.c}, x.i)};
    },
    [](const Args& x) {
      return std::vector<Tensor>{ops::stack({x.a, x.b}, x.i)};
    },
    [](const Args& x) { return ops::split(x.a, x.j, x.i); },
    [](const Args& x) {
      return ops::split(x.a, std::vector<int64_t>{x.j, 1}, x.i);
    },
    [](const Args& x) { return ops::chunk(x.a, x.j, x.i); },
    [](const Args& x) { return std::vector<Tensor>{ops::select(x.a, x.i, x.j)}; },
    [](const Args& x) { return std::vector<Tensor>{ops::expand(x.a, x.b.sizes())}; },
    [](const Args& x) { return std::vector<Tensor>{ops::flatten(x.a, x.i, x.j)}; },
    [](const Args& x) { return std::vector<Tensor>{x.a.narrow(x.i, x.j, 1)}; },
    [](const Args& x) { return std::vector<Tensor>{x.a.transpose(x.i, x.j)}; },
    [](const Args& x) { return std::vector<Tensor>{x.a.view(x.b.sizes())}; },
    [](const Args& x) {
      return std::vector<Tensor>{x.a.reshape({x.i, -1})};
    },
    [](const Args& x) {
      Tensor y = x.a.clone();
      y.add_(x.b);
      return std::vector<Tensor>{y};
    },
    [](const Args& x) {
      Tensor y = x.a;
      y.copy_(x.b);  // x.b may be a view of x.a's storage (below)
      return std::vector<Tensor>{y};
    },
};

struct Reader {
  const uint8_t* p;
  size_t n;
  uint8_t byte() {
    if (n == 0) return 0;
    --n;
    return *p++;
  }
  int64_t int64() {
    int64_t v = 0;
    const size_t k = n < 8 ? n : 8;
    std::memcpy(&v, p, k);
    p += k;
    n -= k;
    return v;
  }
  // Mostly 0-3; sometimes -1, a large or an extreme size.
  int64_t size() {
    const uint8_t b = byte();
    if (b < 200) return b % 4;
    if (b < 220) return -1;
    if (b < 240) return int64_t(1) << (b - 200);
    return int64();
  }
  Shape shape() {
    Shape s(byte() % 5);
    for (int64_t& d : s) d = size();
    return s;
  }
};

// A tensor of `shape` when it is valid and small in every dimension, else undefined;
// the shape checks of the factories run either way. (A valid large shape is not
// built, nor an empty one with a huge dimension: matmul of [1, 2^32, 0] and [0] asks
// for 16 GB, as it should, which the fuzzer's malloc limit calls a crash.)
Tensor make(const Shape& s, uint64_t seed) {
  try {
    bool small = true;
    for (int64_t d : s) small = small && d <= 64;
    if (tt::shape_numel(s) <= 4096 && small) return Tensor::rand(s, seed);
    (void)tt::contiguous_strides(s);
  } catch (const tt::Error&) {
  }
  return Tensor();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Reader in{data, size};
  const size_t op = in.byte() % kOps.size();
  const uint8_t alias = in.byte();
  Args args;
  args.a = make(in.shape(), 1);
  args.b = make(in.shape(), 2);
  args.c = make(in.shape(), 3);
  // Sometimes b is a view of a (transposed or a slice), for the overlap checks.
  if (args.a.defined() && args.a.dim() >= 2 && alias % 4 == 1) args.b = args.a.transpose(0, 1);
  if (args.a.defined() && args.a.dim() >= 1 && args.a.size(0) > 0 && alias % 4 == 2)
    args.b = args.a.select(0, 0);
  args.i = in.byte() % 2 ? static_cast<int8_t>(in.byte()) : in.int64();
  args.j = in.byte() % 2 ? static_cast<int8_t>(in.byte()) : in.int64();
  std::vector<Tensor> out;
  try {
    out = kOps[op](args);
  } catch (const tt::Error&) {
    return 0;
  }
  for (size_t k = 0; k < out.size(); ++k) {
    const Tensor& t = out[k];
    if (!t.defined()) continue;
    // The shape holds the elements, and every one of them can be read (in the first
    // pieces: chunk may return a million empty ones).
    tt::fuzz::require(t.numel() == tt::shape_numel(t.sizes()), "numel differs from the shape's");
    if (k < 16 && t.numel() <= 4096) (void)t.to_vector<double>();
  }
  return 0;
}
