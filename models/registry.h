// The model registry: every model the `tt` command line, the fixture checker, the
// tests and the benchmarks can name. The five seed models are registered here; a
// user registers a model of their own through the same call, and an executable that
// links tensortune::cli and calls tt::cli::main (tools/tt/cli.h) then gets `tt run`,
// `compare`, `tune` and `bench` for it (examples/custom_model shows one):
//
//   TT_REGISTER_MODEL(tt::models::ModelSpec("MyBlock")
//                         .describe("x = Linear(in, out)(x); return relu(x)")
//                         .arg("in_features", tt::models::ArgKind::Int)
//                         .arg("out_features", tt::models::ArgKind::Int)
//                         .input("x")
//                         .small("[64, 128]", {{32, 64}})
//                         .full("[4096, 4096]", {{8192, 4096}})
//                         .construct<MyBlock, int64_t, int64_t>());
//
// A model is built from a JSON argument list as the fixtures store it ("[64, 80,
// [80]]"; Python tuples become lists; trailing arguments with defaults may be left
// out) plus a seed; each model has two ready-made problem sizes, "small" (quick, like
// the fixtures) and "full" (the size worth tuning for).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/module.h"

namespace tt::models {

enum class ArgKind { Int, Float, Shape };
const char* arg_kind_name(ArgKind kind);  // "int", "float", "shape"

struct ArgSpec {
  std::string name;
  ArgKind kind;
  std::string default_json;  // empty when the argument is required
};

struct ShapePreset {
  std::string init;                 // constructor arguments, a JSON list
  std::vector<Shape> input_shapes;  // one per forward input, in order
};

// A model's constructor arguments after checking them against its ArgSpecs: position
// i holds the given value or the spec's default, of the spec's kind.
class ModelArgs {
 public:
  ModelArgs(std::vector<int64_t> ints, std::vector<double> numbers, std::vector<Shape> shapes)
      : ints_(std::move(ints)), numbers_(std::move(numbers)), shapes_(std::move(shapes)) {}
  size_t size() const { return ints_.size(); }
  int64_t integer(size_t i) const { return ints_.at(i); }       // an Int argument
  double number(size_t i) const { return numbers_.at(i); }      // an Int or Float argument
  const Shape& shape(size_t i) const { return shapes_.at(i); }  // a Shape argument

  // The argument as a constructor parameter of type T (int64_t/int, double/float, Shape).
  template <typename T>
  T as(size_t i) const {
    if constexpr (std::is_same_v<T, Shape>) {
      return shape(i);
    } else if constexpr (std::is_integral_v<T>) {
      return static_cast<T>(integer(i));
    } else {
      return static_cast<T>(number(i));
    }
  }

 private:
  std::vector<int64_t> ints_;
  std::vector<double> numbers_;
  std::vector<Shape> shapes_;
};

// Builds the model from checked arguments; weights are drawn from `seed`.
using ModelFactory = std::function<std::shared_ptr<Module>(const ModelArgs&, uint64_t seed)>;
// The longest reduction of the model's computation (the inner dimension of its
// GEMMs, the length of the segments its norms average over) for the given arguments
// and input shapes: `tt tune` derives its verification tolerance from it
// (autotune/tolerance.h).
using ReductionRule =
    std::function<int64_t(const ModelArgs& args, const std::vector<Shape>& input_shapes)>;

// Floating-point operations of one forward (a GEMM's 2*M*N*K) for the given arguments
// and input shapes: `tt bench` reports achieved TFLOP/s from it.
using FlopRule =
    std::function<double(const ModelArgs& args, const std::vector<Shape>& input_shapes)>;

struct ModelInfo {
  std::string name;
  std::string forward;  // what forward computes, in PyTorch terms
  std::vector<ArgSpec> args;
  std::vector<std::string> input_names;
  ShapePreset small;
  ShapePreset full;
  ModelFactory factory;
  // Empty: every element of the first input but the batch (its first dimension).
  ReductionRule reduction;
  // Empty: unknown (no TFLOP/s in `tt bench --json`).
  FlopRule flops;

  // "small" or "full"; anything else is a tt::Error naming the choices.
  const ShapePreset& preset(const std::string& which) const;
  // The checked constructor arguments of `init_json`; tt::Error naming the model and
  // the argument when the count, a type or the JSON itself is wrong.
  ModelArgs parse_args(const std::string& init_json) const;
  // reduction() at the preset's arguments and shapes, or the default rule.
  int64_t longest_reduction(const ShapePreset& preset) const;
  // flops() at the preset's arguments and shapes; 0 when the model registered none.
  double forward_flops(const ShapePreset& preset) const;
};

// A fluent way to fill a ModelInfo (what TT_REGISTER_MODEL takes).
class ModelSpec {
 public:
  explicit ModelSpec(std::string name) { info_.name = std::move(name); }
  ModelSpec& describe(std::string forward) {
    info_.forward = std::move(forward);
    return *this;
  }
  // A constructor argument; `default_json` ("1e-5", "[4]") makes it optional.
  ModelSpec& arg(std::string name, ArgKind kind, std::string default_json = "") {
    info_.args.push_back({std::move(name), kind, std::move(default_json)});
    return *this;
  }
  ModelSpec& input(std::string name) {
    info_.input_names.push_back(std::move(name));
    return *this;
  }
  ModelSpec& small(std::string init, std::vector<Shape> input_shapes) {
    info_.small = {std::move(init), std::move(input_shapes)};
    return *this;
  }
  ModelSpec& full(std::string init, std::vector<Shape> input_shapes) {
    info_.full = {std::move(init), std::move(input_shapes)};
    return *this;
  }
  ModelSpec& factory(ModelFactory f) {
    info_.factory = std::move(f);
    return *this;
  }
  // The factory `std::make_shared<M>(arg0, arg1, ..., seed)`, the arguments converted
  // to the constructor's parameter types Params (int64_t, double, Shape, ...).
  template <typename M, typename... Params>
  ModelSpec& construct() {
    info_.factory = [](const ModelArgs& a, uint64_t seed) -> std::shared_ptr<Module> {
      return make<M, Params...>(a, seed, std::index_sequence_for<Params...>{});
    };
    return *this;
  }
  ModelSpec& reduction(ReductionRule rule) {
    info_.reduction = std::move(rule);
    return *this;
  }
  ModelSpec& flops(FlopRule rule) {
    info_.flops = std::move(rule);
    return *this;
  }
  const ModelInfo& info() const { return info_; }

 private:
  template <typename M, typename... Params, size_t... I>
  static std::shared_ptr<Module> make(const ModelArgs& a, uint64_t seed,
                                      std::index_sequence<I...>) {
    return std::make_shared<M>(a.as<std::decay_t<Params>>(I)..., seed);
  }
  ModelInfo info_;
};

// Adds a model to the registry, after the seeds, in call order. tt::Error when the
// name is taken or empty, a preset does not match the arguments or inputs, or there
// is no factory. Returns true (so that a static can hold it, see TT_REGISTER_MODEL).
bool register_model(ModelInfo info);
inline bool register_model(const ModelSpec& spec) { return register_model(spec.info()); }

namespace detail {
// What TT_REGISTER_MODEL calls before main: an exception there could only terminate
// the program, so the error is kept and tt::cli::main reports it as a sentence.
bool register_at_startup(const ModelSpec& spec) noexcept;
}  // namespace detail
// The errors of registrations made before main (empty when all succeeded).
const std::vector<std::string>& startup_registration_errors();

// Every registered model: the five seeds (in the order of docs/models.md), then the
// models registered by the program. Register before handing the list (or pointers into
// it) to other code: a later registration may move the entries.
const std::vector<ModelInfo>& registered_models();
// Throws tt::Error naming the closest known name (and listing them all) when `name`
// is not registered.
const ModelInfo& find_model(std::string_view name);

// The candidate closest to `text` by edit distance (case-insensitive), when it is
// close enough to be a likely typo; "" otherwise. The CLI uses it for commands too.
std::string closest_name(const std::string& text, const std::vector<std::string>& candidates);

// Builds `name` from its JSON argument list. Weights are drawn from `seed`
// (PyTorch-like initialisation), so the same seed always gives the same model.
// Wrong argument counts or types throw tt::Error naming the model and the argument.
std::shared_ptr<Module> build_model(const std::string& name, const std::string& init_json,
                                    uint64_t seed = 0);

// Uniform [0, 1) inputs (as torch.rand) for the given shapes; input i has a seed of
// its own derived from `seed`, distinct from the seeds the models derive.
std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, uint64_t seed,
                                  Device device = Device::cpu());

}  // namespace tt::models

#define TT_MODELS_CONCAT_(a, b) a##b
#define TT_MODELS_CONCAT(a, b) TT_MODELS_CONCAT_(a, b)
// TT_REGISTER_MODEL(spec): registers a ModelSpec when the program starts. Put it in a
// source file of the executable itself (a static library's unreferenced objects are
// dropped by the linker, and their registrations with them).
#define TT_REGISTER_MODEL(...)                                                          \
  [[maybe_unused]] static const bool TT_MODELS_CONCAT(tt_model_registered_, __LINE__) = \
      ::tt::models::detail::register_at_startup(__VA_ARGS__)
