// A program outside the tensortune tree that includes only the umbrella header and
// links only tensortune::tensortune: a two-layer MLP of its own written with
// tt::Module and tt::ops on hand-picked weights (so its output is known exactly),
// then a registered seed model built by name. Prints lines the install test checks.
#include <tensortune/tensortune.h>

#include <iostream>

namespace {

// relu(x W1^T + b1) W2^T
class TinyMlp : public tt::Module {
 public:
  TinyMlp() {
    w1_ = register_parameter("w1", tt::Tensor::from_vector<float>({1, 0, 0, 1, 1, -1}, {3, 2}));
    b1_ = register_parameter("b1", tt::Tensor::from_vector<float>({0.5f, -3, 2}, {3}));
    w2_ = register_parameter("w2", tt::Tensor::from_vector<float>({2, 5, 7}, {1, 3}));
  }
  std::vector<tt::Tensor> forward(const std::vector<tt::Tensor>& inputs) override {
    TT_CHECK(inputs.size() == 1, "TinyMlp expects 1 input but got {}", inputs.size());
    return {tt::ops::linear(tt::ops::relu(tt::ops::linear(inputs[0], w1_, b1_)), w2_)};
  }
  std::string name() const override { return "TinyMlp"; }

 private:
  tt::Tensor w1_, b1_, w2_;
};

}  // namespace

int main() {
  try {
    std::cout << "tensortune " << TT_VERSION_STRING << "\n";
    TinyMlp mlp;
    // x W1^T + b1 = [1, 2, -1] + [0.5, -3, 2] = [1.5, -1, 1]; relu -> [1.5, 0, 1];
    // times W2^T = 2 * 1.5 + 7 * 1 = 10.
    tt::Tensor out = mlp.forward({tt::Tensor::from_vector<float>({1, 2}, {1, 2})})[0];
    std::cout << "TinyMlp parameters: " << mlp.named_parameters().size() << "\n";
    std::cout << "TinyMlp output: " << out.item() << "\n";

    const tt::models::ModelInfo& info = tt::models::find_model("GemmBiasReLU");
    auto model = tt::models::build_model(info.name, info.small.init, /*seed=*/1);
    tt::Tensor y = model->forward(tt::models::random_inputs(info.small.input_shapes, 1))[0];
    std::cout << info.name << " output shape: " << tt::shape_str(y.sizes()) << "\n";
    std::cout << "cuda available: " << (tt::cuda::is_available() ? "yes" : "no") << "\n";
  } catch (const tt::Error& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
