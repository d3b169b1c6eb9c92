// Issue 20, part B: index_select, gather, embedding, dropout, Tensor::index (Slice,
// None, Ellipsis, integers, int64 and uint8 index tensors), operator[], index_put_,
// the method forms, nn::Embedding / nn::Dropout, layers drawing from the global
// generator, and state_dict's registration order. Values are checked against
// hand-computed results on arange inputs; the CUDA halves compare with the CPU and skip
// without a GPU.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "core/indexing.h"
#include "core/module.h"
#include "models/layers.h"
#include "models/seed.h"
#include "ops/ops.h"
#include "support/test_util.h"

namespace tt {
namespace {

using indexing::Ellipsis;
using indexing::None;
using indexing::Slice;
using test::error_of;

Tensor ar(const Shape& s) {  // 0, 1, 2, ... as float32
  return Tensor::arange(0.0, static_cast<double>(shape_numel(s)), 1.0, DType::F32, Device::cpu())
      .reshape(s);
}
Tensor ids(const std::vector<int64_t>& v, Shape s = {}) {
  if (s.empty()) s = {static_cast<int64_t>(v.size())};
  return Tensor::from_vector(v, s);
}
std::vector<float> vals(const Tensor& t) { return t.to_vector<float>(); }

TEST(IndexSelect, PicksEntriesAlongADim) {
  const Tensor x = ar({3, 4});
  EXPECT_EQ(vals(ops::index_select(x, 0, ids({2, 0, 2}))),
            (std::vector<float>{8, 9, 10, 11, 0, 1, 2, 3, 8, 9, 10, 11}));
  const Tensor y = x.index_select(-1, ids({3, 1}));
  EXPECT_EQ(y.sizes(), (Shape{3, 2}));
  EXPECT_EQ(vals(y), (std::vector<float>{3, 1, 7, 5, 11, 9}));
  // int64 data and a transposed view.
  const Tensor z = ops::index_select(Tensor::arange(0, 6).reshape({2, 3}).t(), 0, ids({1}));
  EXPECT_EQ(z.dtype(), DType::I64);
  EXPECT_EQ(z.to_vector<int64_t>(), (std::vector<int64_t>{1, 4}));
}

TEST(IndexSelect, ErrorsAreSentences) {
  const Tensor x = ar({3, 4});
  EXPECT_EQ(error_of([&] { ops::index_select(x, 0, ids({3})); }),
            "index_select: index 3 is out of range for dimension 0 of size 3 (expected an index "
            "in [0, 2])");
  EXPECT_EQ(error_of([&] { ops::index_select(x, 1, x); }),
            "index_select: index has dtype float32; expected an int64 or int32 tensor");
  EXPECT_EQ(error_of([&] {
              ops::index_select(x, 0, ids({0, 1}, {1, 2}));
            }),
            "index_select: index has shape [1, 2]; expected a 1-D (or 0-d) tensor");
}

TEST(Gather, FollowsTorchGather) {
  const Tensor x = ar({2, 3});
  const Tensor out = ops::gather(x, 1, ids({2, 2, 0, 1, 0, 0}, {2, 3}));
  EXPECT_EQ(vals(out), (std::vector<float>{2, 2, 0, 4, 3, 3}));
  const Tensor rows = x.gather(0, ids({1, 0}, {1, 2}));
  EXPECT_EQ(vals(rows), (std::vector<float>{3, 1}));
  EXPECT_EQ(ops::gather(x, 1, ids({0, 1, 2, 0}, {1, 4})).sizes(), (Shape{1, 4}));
  EXPECT_EQ(error_of([&] {
              ops::gather(x, 0, ids({0, 1, 1, 0}, {1, 4}));
            }),
            "gather: index has shape [1, 4] but input has shape [2, 3]; expected "
            "index.size(1) <= input.size(1) outside dimension 0");
  EXPECT_EQ(error_of([&] {
              ops::gather(x, 0, ids({-1}, {1, 1}));
            }),
            "gather: index -1 is out of range for dimension 0 of size 2 (expected an index in "
            "[0, 1])");
}

TEST(Embedding, LooksUpRows) {
  const Tensor w = ar({4, 3});
  const Tensor out = ops::embedding(w, ids({3, 0, 3, 1}, {2, 2}));
  EXPECT_EQ(out.sizes(), (Shape{2, 2, 3}));
  EXPECT_EQ(vals(out), (std::vector<float>{9, 10, 11, 0, 1, 2, 9, 10, 11, 3, 4, 5}));
  EXPECT_EQ(error_of([&] { ops::embedding(w, ids({4})); }),
            "embedding: index 4 is out of range for dimension 0 of size 4 (expected an index in "
            "[0, 3])");
  EXPECT_EQ(error_of([&] { ops::embedding(ar({4}), ids({0})); }),
            "embedding: weight must be a 2-D tensor [num_embeddings, embedding_dim] but got [4]");
}

TEST(Embedding, LayerHasPyTorchInitAndPaddingRow) {
  nn::Embedding emb(6, 4, /*padding_idx=*/-1, /*seed=*/3);
  EXPECT_EQ(emb.padding_idx, 5);
  EXPECT_EQ(emb.str(), "Embedding(6, 4, padding_idx=5)");
  ASSERT_EQ(emb.named_parameters().size(), 1u);
  EXPECT_EQ(emb.named_parameters()[0].first, "weight");
  EXPECT_EQ(vals(emb.weight.select(0, 5)), (std::vector<float>(4, 0.0f)));
  // N(0, 1): the other rows are the seeded normal draw.
  EXPECT_EQ(vals(emb.weight.narrow(0, 0, 5)),
            vals(Tensor::randn({6, 4}, nn::derive_seed(3, 0)).narrow(0, 0, 5)));
  const Tensor out = emb(ids({5, 1}));
  EXPECT_EQ(vals(out.select(0, 0)), (std::vector<float>(4, 0.0f)));
  EXPECT_EQ(vals(out.select(0, 1)), vals(emb.weight.select(0, 1)));
  EXPECT_EQ(error_of([] { nn::Embedding(3, 2, 3); }),
            "Embedding: padding_idx must be within num_embeddings (3) but got 3");
}

TEST(Dropout, EvalIsIdentityAndTrainScalesKeptElements) {
  const Tensor x = ar({4, 50}) + 1.0;
  EXPECT_TRUE(ops::dropout(x, 0.5, false).is_same(x));
  const Tensor y = ops::dropout(x, 0.25, true, 99);
  const std::vector<float> xv = vals(x), yv = vals(y);
  int kept = 0;
  for (size_t i = 0; i < xv.size(); ++i) {
    if (yv[i] != 0.0f) {
      ++kept;
      EXPECT_EQ(yv[i], xv[i] * static_cast<float>(1.0 / 0.75));
    }
  }
  EXPECT_GT(kept, 120);  // ~150 of 200 kept
  EXPECT_LT(kept, 180);
  EXPECT_EQ(vals(ops::dropout(x, 0.25, true, 99)), yv);  // a seed fixes the mask
  EXPECT_EQ(vals(ops::dropout(x, 1.0)), std::vector<float>(200, 0.0f));
  EXPECT_EQ(error_of([&] { ops::dropout(x, 1.5); }),
            "dropout: probability p must be in [0, 1] but got 1.5");
  EXPECT_EQ(error_of([] { nn::Dropout(-0.1); }),
            "Dropout: probability p must be in [0, 1] but got -0.1");
  nn::Dropout layer(0.5);
  EXPECT_EQ(layer.str(), "Dropout(p=0.5, inplace=False)");
  layer.eval();
  EXPECT_TRUE(layer(x).is_same(x));
  layer.train();
  manual_seed(5);
  const Tensor a = layer(x);
  const Tensor b = layer(x);
  EXPECT_NE(vals(a), vals(b));  // each call draws a new mask
  manual_seed(5);
  EXPECT_EQ(vals(layer(x)), vals(a));
}

TEST(Dropout, CudaMaskEqualsCpuMask) {
  TT_REQUIRE_CUDA();
  const Tensor x = ar({3, 333}) - 100.0;
  const Tensor cpu = ops::dropout(x, 0.4, true, 1234);
  const Tensor gpu = ops::dropout(x.to(Device::cuda(0)), 0.4, true, 1234);
  EXPECT_EQ(vals(gpu), vals(cpu));
}

TEST(TensorIndex, BasicIndicesMakeViews) {
  const Tensor x = ar({4, 6, 5});
  const Tensor a = x.index({1, Slice(1, 5, 2)});
  EXPECT_EQ(a.sizes(), (Shape{2, 5}));
  EXPECT_TRUE(a.shares_storage_with(x));
  EXPECT_EQ(vals(a)[0], 35.0f);  // x[1, 1, 0]
  EXPECT_EQ(vals(a)[5], 45.0f);  // x[1, 3, 0]
  const Tensor b = x.index({None, Ellipsis, 2});
  EXPECT_EQ(b.sizes(), (Shape{1, 4, 6}));
  EXPECT_EQ(vals(b)[7], 37.0f);  // x[1, 1, 2]
  const Tensor c = x.index({Slice(), Slice(-3, None), Slice(None, None, 3)});
  EXPECT_EQ(c.sizes(), (Shape{4, 3, 2}));
  EXPECT_EQ(vals(c)[0], 15.0f);  // x[0, 3, 0]
  EXPECT_EQ(vals(c)[1], 18.0f);  // x[0, 3, 3]
  EXPECT_EQ(vals(x.index({"...", -1}))[0], 4.0f);
  EXPECT_EQ(x.index({Slice(7, 9)}).sizes(), (Shape{0, 6, 5}));  // clamped, empty
  const Tensor row = x[2][-1];
  EXPECT_EQ(row.sizes(), (Shape{5}));
  EXPECT_EQ(vals(row)[0], 85.0f);
}

TEST(TensorIndex, TensorIndicesGatherCopies) {
  const Tensor x = ar({4, 6, 5});
  const Tensor a = x.index({Slice(), ids({3, 0, -1})});
  EXPECT_EQ(a.sizes(), (Shape{4, 3, 5}));
  EXPECT_FALSE(a.shares_storage_with(x));
  EXPECT_EQ(vals(a.index({1, 0, 0})), (std::vector<float>{45}));  // x[1, 3, 0]
  EXPECT_EQ(vals(a.index({1, 2, 0})), (std::vector<float>{55}));  // x[1, 5, 0]
  // A uint8 mask over the first dim.
  const Tensor m = Tensor::from_vector<uint8_t>({0, 1, 0, 1}, {4});
  const Tensor b = x.index({m});
  EXPECT_EQ(b.sizes(), (Shape{2, 6, 5}));
  EXPECT_EQ(vals(b.index({1, 0, 0})), (std::vector<float>{90}));
  // Two index tensors apart: the broadcast index dims lead (NumPy's rule).
  const Tensor c = x.index({ids({0, 3}), Slice(), ids({4, 1})});
  EXPECT_EQ(c.sizes(), (Shape{2, 6}));
  EXPECT_EQ(vals(c.index({1, 2})), (std::vector<float>{3 * 30 + 2 * 5 + 1}));
  // Two adjacent: in place.
  const Tensor d = x.index({Slice(), ids({1, 2}, {2, 1}), ids({0, 4})});
  EXPECT_EQ(d.sizes(), (Shape{4, 2, 2}));
  EXPECT_EQ(vals(d.index({3, 1, 1})), (std::vector<float>{3 * 30 + 2 * 5 + 4}));
  EXPECT_EQ(error_of([&] {
              x.index({0, 0, 0, 0});
            }),
            "index: too many indices for a tensor of dimension 3: the indices address 4 "
            "dimensions");
  EXPECT_EQ(error_of([&] {
              x.index({Slice(), 6});
            }),
            "index: index 6 is out of range for dimension 1 of size 6 (expected an index in [-6, "
            "5])");
  EXPECT_EQ(error_of([&] { x.index({Slice(0, 4, -1)}); }),
            "index: slice step must be positive but got -1");
  EXPECT_EQ(error_of([&] {
              x.index({Ellipsis, Ellipsis});
            }),
            "index: an index can have only one Ellipsis but got 2");
}

TEST(TensorIndex, IndexPutWritesThroughBasicViews) {
  Tensor x = Tensor::zeros({3, 4});
  x.index_put_({Slice(), 1}, 7.0);
  x.index_put_({2, Slice(2, None)}, Tensor::from_vector<float>({1, 2}, {2}));
  EXPECT_EQ(vals(x), (std::vector<float>{0, 7, 0, 0, 0, 7, 0, 0, 0, 7, 1, 2}));
  EXPECT_EQ(error_of([&] { x.index_put_({ids({0})}, 1.0); }),
            "index_put_: only integers, slices, None and Ellipsis are supported; writing through "
            "an index tensor is not");
}

TEST(TensorIndex, CudaMatchesCpu) {
  TT_REQUIRE_CUDA();
  const Device gpu = Device::cuda(0);
  const Tensor x = Tensor::randn({4, 6, 5}, 3);
  const Tensor xg = x.to(gpu);
  auto same = [](const Tensor& g, const Tensor& c) { EXPECT_EQ(vals(g), vals(c)); };
  same(xg.index({Slice(), ids({3, 0, -1}).to(gpu)}), x.index({Slice(), ids({3, 0, -1})}));
  same(xg.index({ids({0, 3}).to(gpu), Slice(), ids({4, 1}).to(gpu)}),
       x.index({ids({0, 3}), Slice(), ids({4, 1})}));
  same(ops::gather(xg, 2, ids({4, 0, 1}, {1, 1, 3}).to(gpu)),
       ops::gather(x, 2, ids({4, 0, 1}, {1, 1, 3})));
  same(ops::embedding(xg.reshape({24, 5}), ids({23, 0}).to(gpu)),
       ops::embedding(x.reshape({24, 5}), ids({23, 0})));
  Tensor yg = Tensor::zeros({3, 4}, DType::F32, gpu);
  yg.index_put_({Slice(), 1}, 7.0);
  yg.index_put_({2, Slice(2, None)}, Tensor::from_vector<float>({1, 2}, {2}).to(gpu));
  EXPECT_EQ(vals(yg), (std::vector<float>{0, 7, 0, 0, 0, 7, 0, 0, 0, 7, 1, 2}));
}

TEST(MethodForms, MatchTheOps) {
  const Tensor x = Tensor::randn({3, 4}, 8);
  EXPECT_EQ(vals(x.softmax(-1)), vals(ops::softmax(x, -1)));
  EXPECT_EQ(vals(x.matmul(x.t())), vals(ops::matmul(x, x.transpose(0, 1))));
  EXPECT_EQ(vals(x.sum()), vals(ops::sum(x)));
  EXPECT_EQ(vals(x.sum(1)), vals(ops::sum(x, {1})));
  EXPECT_EQ(vals(ops::sum(x, 1)), vals(ops::sum(x, {1})));  // the int form compiles
  EXPECT_EQ(ops::sum(x, {}).dim(), 0);                      // {} is still every dim
  EXPECT_EQ(vals(x.mean(-1, true)), vals(ops::mean(x, {-1}, true)));
  EXPECT_EQ(vals(x.var(0)), vals(ops::var(x, {0})));
  EXPECT_EQ(vals(x.amax(1)), vals(ops::amax(x, {1})));
  EXPECT_EQ(x.argmax(1).to_vector<int64_t>(), ops::argmax(x, 1).to_vector<int64_t>());
  EXPECT_EQ(vals(x.abs().sqrt().log().exp()), vals(ops::exp(ops::log(ops::sqrt(ops::abs(x))))));
  EXPECT_EQ(vals(x.relu()), vals(ops::relu(x)));
  EXPECT_EQ(vals(x.sigmoid()), vals(ops::sigmoid(x)));
  EXPECT_EQ(vals(x.tanh()), vals(ops::tanh(x)));
  EXPECT_EQ(vals(x.clamp(-0.5, 0.5)), vals(ops::clamp(x, -0.5, 0.5)));
  EXPECT_EQ(x.view_as(Tensor::zeros({4, 3})).sizes(), (Shape{4, 3}));
  EXPECT_EQ(x.select(0, 0).expand_as(x).sizes(), (Shape{3, 4}));
  EXPECT_EQ(x.to(DType::F64).dtype(), DType::F64);
  EXPECT_EQ(error_of([] {
              Tensor::zeros({2, 2, 2}).t();
            }),
            "t: expected a tensor of at most 2 dimensions but got shape [2, 2, 2]");
}

TEST(GlobalGenerator, UnseededLayersDifferAndManualSeedReproducesThem) {
  manual_seed(42);
  nn::Linear a(4, 4), b(4, 4);
  nn::Embedding e(5, 3);
  EXPECT_NE(vals(a.weight), vals(b.weight));
  EXPECT_NE(vals(a.bias), vals(b.bias));
  manual_seed(42);
  nn::Linear a2(4, 4), b2(4, 4);
  nn::Embedding e2(5, 3);
  EXPECT_EQ(vals(a2.weight), vals(a.weight));
  EXPECT_EQ(vals(b2.weight), vals(b.weight));
  EXPECT_EQ(vals(e2.weight), vals(e.weight));
  manual_seed(43);
  EXPECT_NE(vals(nn::Linear(4, 4).weight), vals(a.weight));
  // An explicit seed ignores the generator (the fixtures depend on it).
  manual_seed(1);
  const std::vector<float> seeded = vals(nn::Linear(4, 4, true, 7).weight);
  manual_seed(2);
  EXPECT_EQ(vals(nn::Linear(4, 4, true, 7).weight), seeded);
}

struct Inner : Module {
  Inner() {
    register_parameter("w", Tensor::zeros({1}));
    register_buffer("stat", Tensor::zeros({1}));
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override { return in; }
  std::string name() const override { return "Inner"; }
};
struct Outer : Module {
  Outer() {
    register_parameter("zeta", Tensor::zeros({1}));
    register_module("b_inner", std::make_shared<Inner>());
    register_buffer("alpha", Tensor::zeros({1}));
    register_module("a_inner", std::make_shared<Inner>());
  }
  std::vector<Tensor> forward(const std::vector<Tensor>& in) override { return in; }
  std::string name() const override { return "Outer"; }
};

TEST(StateDictOrder, IsRegistrationOrderAsPyTorch) {
  Outer m;
  // PyTorch: own parameters, own buffers, then each child's, in registration order.
  EXPECT_EQ(m.state_dict().keys(),
            (std::vector<std::string>{"zeta", "alpha", "b_inner.w", "b_inner.stat", "a_inner.w",
                                      "a_inner.stat"}));
  std::vector<std::string> params;
  for (const auto& [name, t] : m.named_parameters()) params.push_back(name);
  EXPECT_EQ(params, (std::vector<std::string>{"zeta", "b_inner.w", "a_inner.w"}));
  StateDict d = m.state_dict();
  EXPECT_TRUE(d.at("a_inner.w").is_same(m.named_parameters()[2].second));
  EXPECT_EQ(d.count("nope"), 0u);
  d["new"] = Tensor::ones({1});
  EXPECT_EQ(d.keys().back(), "new");
  EXPECT_EQ(d.erase("zeta"), 1u);
  EXPECT_EQ(d.keys().front(), "alpha");
  const std::map<std::string, Tensor> sorted = d;  // converts for safetensors::save
  EXPECT_EQ(sorted.begin()->first, "a_inner.stat");
}

}  // namespace
}  // namespace tt
