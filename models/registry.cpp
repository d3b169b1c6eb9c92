#include "models/registry.h"

#include <fmt/ranges.h>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <mutex>

#include "models/gemm_bias_relu.h"
#include "models/gemm_instance_norm_add_mul.h"
#include "models/gemm_scale_batch_norm.h"
#include "models/gemm_swish_bias_group_norm.h"
#include "models/instance_norm2d_model.h"
#include "models/seed.h"

namespace tt::models {
namespace {

using json = nlohmann::json;

std::string arg_list(const ModelInfo& info) {
  std::string names;
  for (const ArgSpec& a : info.args) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

// An integer that fits int64_t (nlohmann keeps 2^63 and above as unsigned).
bool is_int64(const json& v) {
  return v.is_number_integer() &&
         (!v.is_number_unsigned() ||
          v.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()));
}

bool has_kind(const json& v, ArgKind kind) {
  switch (kind) {
    case ArgKind::Int:
      return is_int64(v);
    case ArgKind::Float:
      return v.is_number();
    case ArgKind::Shape:
      if (!v.is_array() || v.empty()) return false;
      for (const json& d : v)
        if (!is_int64(d)) return false;
      return true;
  }
  return false;
}

const char* kind_example(ArgKind kind) {
  switch (kind) {
    case ArgKind::Int:
      return "an integer";
    case ArgKind::Float:
      return "a number";
    case ArgKind::Shape:
      return "a list of integers such as [80]";
  }
  return "";
}

// At most `limit` characters of a JSON value, so that a huge argument never floods
// the message.
std::string excerpt(const json& v, size_t limit = 60) {
  std::string text = v.dump();
  return text.size() <= limit ? text : text.substr(0, limit) + "...";
}

json parse_json(const std::string& model, const std::string& init_json) {
  try {
    // Bounded depth: a deeply nested list must not recurse without limit.
    int depth = 0;
    bool too_deep = false;
    json given = json::parse(init_json, [&](int d, json::parse_event_t, json&) {
      depth = std::max(depth, d);
      too_deep = too_deep || d > 16;
      return !too_deep;
    });
    TT_CHECK(!too_deep, "{}: the constructor arguments nest deeper than 16 levels", model);
    return given;
  } catch (const json::exception& e) {
    TT_FAIL("{}: the constructor arguments '{}' are not valid JSON ({})", model,
            init_json.size() <= 60 ? init_json : init_json.substr(0, 60) + "...", e.what());
  }
}

struct Registry {
  std::mutex mutex;
  std::vector<ModelInfo> models;  // seeds first
};

void check_preset(const ModelInfo& info, const char* which, const ShapePreset& preset) {
  TT_CHECK(preset.input_shapes.size() == info.input_names.size(),
           "register_model: {} has {} input{} ({}) but its {} preset gives {} input shape{}",
           info.name, info.input_names.size(), info.input_names.size() == 1 ? "" : "s",
           fmt::format("{}", fmt::join(info.input_names, ", ")), which, preset.input_shapes.size(),
           preset.input_shapes.size() == 1 ? "" : "s");
  info.parse_args(preset.init);  // throws naming the model and the argument
}

void add_model(std::vector<ModelInfo>& models, ModelInfo info) {
  TT_CHECK(!info.name.empty(), "register_model: a model needs a name");
  TT_CHECK(static_cast<bool>(info.factory),
           "register_model: {} has no factory (ModelSpec::construct or ::factory)", info.name);
  TT_CHECK(!info.input_names.empty(), "register_model: {} needs at least one input", info.name);
  for (const ModelInfo& m : models)
    TT_CHECK(m.name != info.name, "register_model: a model named '{}' is already registered",
             info.name);
  check_preset(info, "small", info.small);
  check_preset(info, "full", info.full);
  models.push_back(std::move(info));
}

// 2 * M * N * K of the Linear(in_features, out_features) on the first input.
double linear_flops(const ModelArgs& a, const std::vector<Shape>& in) {
  const double k = static_cast<double>(a.integer(0));
  const double m = static_cast<double>(shape_numel(in.at(0))) / k;
  return 2.0 * m * static_cast<double>(a.integer(1)) * k;
}

// The five seed models, registered through the same path as a user's model.
void register_seeds(std::vector<ModelInfo>& models) {
  using K = ArgKind;
  const auto arg_or = [](const ModelArgs& a, size_t i) { return a.integer(i); };
  add_model(models,
            ModelSpec("GemmInstanceNormAddMul")
                .describe("x = Linear(in, out)(x); x = InstanceNorm2d(out)(x[B,1,1,out]) as "
                          "[B,out]; return (x + y) * y")
                .arg("in_features", K::Int)
                .arg("out_features", K::Int)
                .arg("eps", K::Float, "1e-5")
                .arg("momentum", K::Float, "0.1")
                .input("x")
                .input("y")
                .small("[64, 96]", {{16, 64}, {16, 96}})
                .full("[8192, 8192]", {{1024, 8192}, {1024, 8192}})
                .construct<GemmInstanceNormAddMul, int64_t, int64_t, double, double>()
                .flops(linear_flops)
                // The GEMM's K, or the row the instance norm averages over.
                .reduction([=](const ModelArgs& a, const std::vector<Shape>&) {
                  return std::max(arg_or(a, 0), arg_or(a, 1));
                })
                .info());
  add_model(models, ModelSpec("InstanceNorm2dModel")
                        .describe("return InstanceNorm2d(num_features)(x)")
                        .arg("num_features", K::Int)
                        .input("x")
                        .small("[8]", {{4, 8, 32, 32}})
                        .full("[64]", {{112, 64, 512, 512}})
                        .construct<InstanceNorm2dModel, int64_t>()
                        // One (n, c) plane of H*W values.
                        .reduction([](const ModelArgs&, const std::vector<Shape>& in) {
                          const Shape& x = in.at(0);
                          return x.size() == 4 ? x[2] * x[3] : shape_numel(x);
                        })
                        .info());
  add_model(models, ModelSpec("GemmSwishBiasGroupNorm")
                        .describe("x = Linear(in, out)(x); x = sigmoid(x) * x; x = x + bias; "
                                  "return GroupNorm(num_groups, out)(x)")
                        .arg("in_features", K::Int)
                        .arg("out_features", K::Int)
                        .arg("num_groups", K::Int)
                        .arg("bias_shape", K::Shape)
                        .input("x")
                        .small("[48, 128, 8, [128]]", {{32, 48}})
                        .full("[1024, 4096, 64, [4096]]", {{32768, 1024}})
                        .construct<GemmSwishBiasGroupNorm, int64_t, int64_t, int64_t, Shape>()
                        .flops(linear_flops)
                        // The GEMM's K, or the channels of one group.
                        .reduction([=](const ModelArgs& a, const std::vector<Shape>&) {
                          return std::max(arg_or(a, 0),
                                          arg_or(a, 1) / std::max<int64_t>(arg_or(a, 2), 1));
                        })
                        .info());
  add_model(models,
            ModelSpec("GemmScaleBatchNorm")
                .describe("x = Linear(in, out)(x); x = x * scale; return BatchNorm1d(out, eps, "
                          "momentum)(x)")
                .arg("in_features", K::Int)
                .arg("out_features", K::Int)
                .arg("scale_shape", K::Shape)
                .arg("eps", K::Float, "1e-5")
                .arg("momentum", K::Float, "0.1")
                .input("x")
                .small("[40, 72, [72]]", {{64, 40}})
                .full("[4096, 4096, [4096]]", {{16384, 4096}})
                .construct<GemmScaleBatchNorm, int64_t, int64_t, Shape, double, double>()
                .flops(linear_flops)
                // The GEMM's K, or the batch a column's statistics average over.
                .reduction([=](const ModelArgs& a, const std::vector<Shape>& in) {
                  return std::max(arg_or(a, 0), in.at(0).at(0));
                })
                .info());
  add_model(models, ModelSpec("GemmBiasReLU")
                        .describe("x = Linear(in, out, bias=False)(x); return relu(x + bias)")
                        .arg("in_features", K::Int)
                        .arg("out_features", K::Int)
                        .arg("bias_shape", K::Shape)
                        .input("x")
                        .small("[64, 80, [80]]", {{16, 64}})
                        .full("[8192, 8192, [8192]]", {{1024, 8192}})
                        .construct<GemmBiasReLU, int64_t, int64_t, Shape>()
                        .flops(linear_flops)
                        .reduction([=](const ModelArgs& a, const std::vector<Shape>&) {
                          return arg_or(a, 0);
                        })
                        .info());
}

Registry& registry() {
  static Registry* r = [] {
    auto* fresh = new Registry;  // never destroyed: registrations may run at exit too
    register_seeds(fresh->models);
    return fresh;
  }();
  return *r;
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

size_t edit_distance(const std::string& a, const std::string& b) {
  // Optimal string alignment: insertions, deletions, substitutions and swaps of two
  // neighbours ("rnu" for "run"), the commonest typo, each cost 1.
  std::vector<size_t> before(b.size() + 1), prev(b.size() + 1), row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      row[j] =
          std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        row[j] = std::min(row[j], before[j - 2] + 1);
    }
    std::swap(before, prev);
    std::swap(prev, row);
  }
  return prev[b.size()];
}

// Keeps input seeds apart from the seeds models derive from the same user seed.
constexpr uint64_t kInputStream = 0x1A9B7E5D;

}  // namespace

const char* arg_kind_name(ArgKind kind) {
  switch (kind) {
    case ArgKind::Int:
      return "int";
    case ArgKind::Float:
      return "float";
    case ArgKind::Shape:
      return "shape";
  }
  return "?";
}

const ShapePreset& ModelInfo::preset(const std::string& which) const {
  if (which == "small") return small;
  if (which == "full") return full;
  TT_FAIL("{}: unknown shape preset '{}'; expected 'small' or 'full'", name, which);
}

ModelArgs ModelInfo::parse_args(const std::string& init_json) const {
  const json given = parse_json(name, init_json);
  TT_CHECK(given.is_array(), "{}: the constructor arguments must be a JSON list like {} but got {}",
           name, small.init, excerpt(given));
  size_t required = 0;
  for (const ArgSpec& a : args)
    if (a.default_json.empty()) ++required;
  TT_CHECK(given.size() >= required && given.size() <= args.size(),
           "{} takes {}{} argument{} ({}) but got {}", name,
           required == args.size() ? "" : fmt::format("{} to ", required), args.size(),
           args.size() == 1 ? "" : "s", arg_list(*this), given.size());
  std::vector<int64_t> ints(args.size(), 0);
  std::vector<double> numbers(args.size(), 0.0);
  std::vector<Shape> shapes(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgSpec& spec = args[i];
    const json value = i < given.size() ? given[i] : parse_json(name, spec.default_json);
    TT_CHECK(has_kind(value, spec.kind), "{}: argument {} ({}) must be {} but got {}", name, i + 1,
             spec.name, kind_example(spec.kind), excerpt(value));
    if (spec.kind == ArgKind::Shape) {
      shapes[i] = value.get<Shape>();
    } else {
      if (spec.kind == ArgKind::Int) ints[i] = value.get<int64_t>();
      numbers[i] = value.get<double>();
    }
  }
  return ModelArgs(std::move(ints), std::move(numbers), std::move(shapes));
}

int64_t ModelInfo::longest_reduction(const ShapePreset& p) const {
  if (reduction) return reduction(parse_args(p.init), p.input_shapes);
  const Shape& x = p.input_shapes.at(0);
  return x.empty() ? 1 : shape_numel(x) / std::max<int64_t>(x[0], 1);
}

double ModelInfo::forward_flops(const ShapePreset& p) const {
  return flops ? flops(parse_args(p.init), p.input_shapes) : 0.0;
}

bool register_model(ModelInfo info) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  add_model(r.models, std::move(info));
  return true;
}

static std::vector<std::string>& startup_errors() {
  static std::vector<std::string> errors;
  return errors;
}

namespace detail {
bool register_at_startup(const ModelSpec& spec) noexcept {
  try {
    return register_model(spec);
  } catch (const std::exception& e) {
    try {
      startup_errors().push_back(e.what());
    } catch (...) {
    }
  }
  return false;
}
}  // namespace detail

const std::vector<std::string>& startup_registration_errors() { return startup_errors(); }

const std::vector<ModelInfo>& registered_models() { return registry().models; }

std::string closest_name(const std::string& text, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_distance = 0;
  for (const std::string& c : candidates) {
    const size_t d = edit_distance(lower(text), lower(c));
    if (best.empty() || d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  // A likely typo: at most a third of the longer name differs.
  const size_t longest = std::max(text.size(), best.size());
  return !best.empty() && best_distance * 3 <= longest ? best : std::string();
}

const ModelInfo& find_model(std::string_view name) {
  std::vector<std::string> names;
  for (const ModelInfo& m : registered_models()) {
    if (m.name == name) return m;
    names.push_back(m.name);
  }
  const std::string guess = closest_name(std::string(name), names);
  TT_FAIL("unknown model '{}'{}; the known models are {}", name,
          guess.empty() ? "" : fmt::format(" (did you mean {}?)", guess),
          fmt::format("{}", fmt::join(names, ", ")));
}

std::shared_ptr<Module> build_model(const std::string& name, const std::string& init_json,
                                    uint64_t seed) {
  const ModelInfo& info = find_model(name);
  return info.factory(info.parse_args(init_json), seed);
}

std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, uint64_t seed, Device device) {
  std::vector<Tensor> inputs;
  const uint64_t base = nn::derive_seed(seed, kInputStream);
  for (size_t i = 0; i < shapes.size(); ++i)
    inputs.push_back(Tensor::rand(shapes[i], nn::derive_seed(base, i), device));
  return inputs;
}

}  // namespace tt::models
