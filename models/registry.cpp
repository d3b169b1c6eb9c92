#include "models/registry.h"

#include <nlohmann/json.hpp>

#include <functional>

#include "models/gemm_bias_relu.h"
#include "models/gemm_instance_norm_add_mul.h"
#include "models/gemm_scale_batch_norm.h"
#include "models/gemm_swish_bias_group_norm.h"
#include "models/instance_norm2d_model.h"
#include "models/seed.h"

namespace tt::models {
namespace {

using json = nlohmann::json;

// The constructor arguments of one model after checking them against its ArgSpecs:
// position i holds the given value or the spec's default.
class Args {
 public:
  Args(const ModelInfo& info, const std::string& init_json);
  int64_t integer(size_t i) const { return values_.at(i).get<int64_t>(); }
  double number(size_t i) const { return values_.at(i).get<double>(); }
  Shape shape(size_t i) const { return values_.at(i).get<Shape>(); }

 private:
  std::vector<json> values_;
};

std::string arg_list(const ModelInfo& info) {
  std::string names;
  for (const ArgSpec& a : info.args) names += (names.empty() ? "" : ", ") + a.name;
  return names;
}

bool has_kind(const json& v, ArgKind kind) {
  switch (kind) {
    case ArgKind::Int:
      return v.is_number_integer();
    case ArgKind::Float:
      return v.is_number();
    case ArgKind::Shape:
      if (!v.is_array() || v.empty()) return false;
      for (const json& d : v)
        if (!d.is_number_integer()) return false;
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

Args::Args(const ModelInfo& info, const std::string& init_json) {
  json given;
  try {
    given = json::parse(init_json);
  } catch (const json::parse_error& e) {
    TT_FAIL("{}: the constructor arguments '{}' are not valid JSON ({})", info.name, init_json,
            e.what());
  }
  TT_CHECK(given.is_array(), "{}: the constructor arguments must be a JSON list like {} but got {}",
           info.name, info.small.init, given.dump());
  size_t required = 0;
  for (const ArgSpec& a : info.args)
    if (a.default_json.empty()) ++required;
  TT_CHECK(given.size() >= required && given.size() <= info.args.size(),
           "{} takes {}{} argument{} ({}) but got {}", info.name,
           required == info.args.size() ? "" : fmt::format("{} to ", required), info.args.size(),
           info.args.size() == 1 ? "" : "s", arg_list(info), given.size());
  for (size_t i = 0; i < info.args.size(); ++i) {
    const ArgSpec& spec = info.args[i];
    json value = i < given.size() ? given[i] : json::parse(spec.default_json);
    TT_CHECK(has_kind(value, spec.kind), "{}: argument {} ({}) must be {} but got {}", info.name,
             i + 1, spec.name, kind_example(spec.kind), value.dump());
    values_.push_back(std::move(value));
  }
}

using Factory = std::function<std::shared_ptr<Module>(const Args&, uint64_t seed)>;

struct Entry {
  ModelInfo info;
  Factory build;
};

const std::vector<Entry>& entries() {
  using K = ArgKind;
  static const std::vector<Entry> table = {
      {{"GemmInstanceNormAddMul",
        "x = Linear(in, out)(x); x = InstanceNorm2d(out)(x[B,1,1,out]) as [B,out]; "
        "return (x + y) * y",
        {{"in_features", K::Int, ""},
         {"out_features", K::Int, ""},
         {"eps", K::Float, "1e-5"},
         {"momentum", K::Float, "0.1"}},
        {"x", "y"},
        {"[64, 96]", {{16, 64}, {16, 96}}},
        {"[8192, 8192]", {{1024, 8192}, {1024, 8192}}}},
       [](const Args& a, uint64_t seed) {
         return std::make_shared<GemmInstanceNormAddMul>(a.integer(0), a.integer(1), a.number(2),
                                                         a.number(3), seed);
       }},
      {{"InstanceNorm2dModel",
        "return InstanceNorm2d(num_features)(x)",
        {{"num_features", K::Int, ""}},
        {"x"},
        {"[8]", {{4, 8, 32, 32}}},
        {"[64]", {{112, 64, 512, 512}}}},
       [](const Args& a, uint64_t seed) {
         return std::make_shared<InstanceNorm2dModel>(a.integer(0), seed);
       }},
      {{"GemmSwishBiasGroupNorm",
        "x = Linear(in, out)(x); x = sigmoid(x) * x; x = x + bias; "
        "return GroupNorm(num_groups, out)(x)",
        {{"in_features", K::Int, ""},
         {"out_features", K::Int, ""},
         {"num_groups", K::Int, ""},
         {"bias_shape", K::Shape, ""}},
        {"x"},
        {"[48, 128, 8, [128]]", {{32, 48}}},
        {"[1024, 4096, 64, [4096]]", {{32768, 1024}}}},
       [](const Args& a, uint64_t seed) {
         return std::make_shared<GemmSwishBiasGroupNorm>(a.integer(0), a.integer(1), a.integer(2),
                                                         a.shape(3), seed);
       }},
      {{"GemmScaleBatchNorm",
        "x = Linear(in, out)(x); x = x * scale; return BatchNorm1d(out, eps, momentum)(x)",
        {{"in_features", K::Int, ""},
         {"out_features", K::Int, ""},
         {"scale_shape", K::Shape, ""},
         {"eps", K::Float, "1e-5"},
         {"momentum", K::Float, "0.1"}},
        {"x"},
        {"[40, 72, [72]]", {{64, 40}}},
        {"[4096, 4096, [4096]]", {{16384, 4096}}}},
       [](const Args& a, uint64_t seed) {
         return std::make_shared<GemmScaleBatchNorm>(a.integer(0), a.integer(1), a.shape(2),
                                                     a.number(3), a.number(4), seed);
       }},
      {{"GemmBiasReLU",
        "x = Linear(in, out, bias=False)(x); return relu(x + bias)",
        {{"in_features", K::Int, ""}, {"out_features", K::Int, ""}, {"bias_shape", K::Shape, ""}},
        {"x"},
        {"[64, 80, [80]]", {{16, 64}}},
        {"[8192, 8192, [8192]]", {{1024, 8192}}}},
       [](const Args& a, uint64_t seed) {
         return std::make_shared<GemmBiasReLU>(a.integer(0), a.integer(1), a.shape(2), seed);
       }},
  };
  return table;
}

const Entry& find_entry(const std::string& name) {
  std::string known;
  for (const Entry& e : entries()) {
    if (e.info.name == name) return e;
    known += (known.empty() ? "" : ", ") + e.info.name;
  }
  TT_FAIL("unknown model '{}'; the known models are {}", name, known);
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

const std::vector<ModelInfo>& registered_models() {
  static const std::vector<ModelInfo> infos = [] {
    std::vector<ModelInfo> out;
    for (const Entry& e : entries()) out.push_back(e.info);
    return out;
  }();
  return infos;
}

const ModelInfo& find_model(const std::string& name) { return find_entry(name).info; }

std::shared_ptr<Module> build_model(const std::string& name, const std::string& init_json,
                                    uint64_t seed) {
  const Entry& entry = find_entry(name);
  return entry.build(Args(entry.info, init_json), seed);
}

std::vector<Tensor> random_inputs(const std::vector<Shape>& shapes, uint64_t seed, Device device) {
  std::vector<Tensor> inputs;
  const uint64_t base = nn::derive_seed(seed, kInputStream);
  for (size_t i = 0; i < shapes.size(); ++i)
    inputs.push_back(Tensor::rand(shapes[i], nn::derive_seed(base, i), device));
  return inputs;
}

}  // namespace tt::models
