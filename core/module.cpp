#include "core/module.h"

#include <set>
#include <utility>

#include <fmt/ranges.h>

namespace tt {
namespace {

// "'a', 'b', 'c'": names in messages are quoted so that empty or odd names show.
std::string quoted_list(const std::vector<std::string>& names) {
  std::vector<std::string> quoted;
  quoted.reserve(names.size());
  for (const std::string& n : names) quoted.push_back(fmt::format("'{}'", n));
  return fmt::format("{}", fmt::join(quoted, ", "));
}

// Dots separate submodule names in state-dict keys, so a dotted local name would
// make two different modules produce the same key.
void check_local_name(const char* caller, const std::string& name) {
  TT_CHECK(!name.empty(), "{}: the name is empty; expected a non-empty name without '.'", caller);
  TT_CHECK(name.find('.') == std::string::npos,
           "{}: the name '{}' contains '.', which is reserved for submodule paths", caller, name);
}

template <typename Entries>
bool has_name(const Entries& entries, const std::string& name) {
  for (const auto& entry : entries) {
    if (entry.first == name) return true;
  }
  return false;
}

}  // namespace

std::vector<Tensor> Module::operator()(const std::vector<Tensor>& inputs) {
  if (!precision_) return forward(inputs);
  PrecisionGuard guard(*precision_);
  return forward(inputs);
}

NamedTensors Module::named_parameters() const {
  NamedTensors out;
  collect("", /*params=*/true, out);
  return out;
}

NamedTensors Module::named_buffers() const {
  NamedTensors out;
  collect("", /*params=*/false, out);
  return out;
}

std::vector<Tensor> Module::parameters() const {
  std::vector<Tensor> out;
  for (auto& entry : named_parameters()) out.push_back(entry.second);
  return out;
}

std::vector<Tensor> Module::buffers() const {
  std::vector<Tensor> out;
  for (auto& entry : named_buffers()) out.push_back(entry.second);
  return out;
}

std::vector<std::pair<std::string, Module*>> Module::named_modules() {
  std::vector<std::pair<std::string, Module*>> out{{"", this}};
  for (auto& [name, child] : children_) {
    for (auto& [sub, m] : child->named_modules())
      out.emplace_back(sub.empty() ? name : name + "." + sub, m);
  }
  return out;
}

void Module::apply(const std::function<void(Module&)>& fn) {
  fn(*this);
  for (auto& [name, child] : children_) child->apply(fn);
}

std::string Module::str() const {
  const std::string extra = extra_repr();
  if (children_.empty()) return name() + "(" + extra + ")";
  std::string out = name() + "(\n";
  if (!extra.empty()) out += "  " + extra + "\n";
  for (const auto& [child_name, child] : children_) {
    std::string child_str = child->str();
    // Indent the child's continuation lines under its "(name): " line.
    for (size_t pos = child_str.find('\n'); pos != std::string::npos;
         pos = child_str.find('\n', pos + 1))
      child_str.insert(pos + 1, "  ");
    out += "  (" + child_name + "): " + child_str + "\n";
  }
  return out + ")";
}

std::ostream& operator<<(std::ostream& os, const Module& m) { return os << m.str(); }

// PyTorch order: a module's own tensors first, then each child's, recursively.
void Module::collect(const std::string& prefix, bool params, NamedTensors& out) const {
  for (const auto& [name, t] : params ? params_ : buffers_) out.emplace_back(prefix + name, t);
  for (const auto& [name, child] : children_) child->collect(prefix + name + ".", params, out);
}

// The tensors are the module's own handles, not copies, as in PyTorch.
StateDict Module::state_dict() const {
  StateDict dict;
  collect_state("", dict);
  return dict;
}

void Module::collect_state(const std::string& prefix, StateDict& out) const {
  for (const auto& [name, t] : params_) out.emplace(prefix + name, t);
  for (const auto& [name, t] : buffers_) out.emplace(prefix + name, t);
  for (const auto& [name, child] : children_) child->collect_state(prefix + name + ".", out);
}

void Module::load_state_dict(const StateDict& dict, bool strict) {
  NamedTensors own = named_parameters();
  for (auto& entry : named_buffers()) own.push_back(entry);

  // Every problem is collected first so that one error names all of them and a
  // failed load leaves the module untouched.
  std::vector<std::string> missing;
  std::vector<std::string> mismatches;
  std::set<std::string> own_names;
  for (const auto& [name, target] : own) {
    own_names.insert(name);
    const auto it = dict.find(name);
    if (it == dict.end()) {
      missing.push_back(name);
      continue;
    }
    const Tensor& source = it->second;
    TT_CHECK(source.defined(), "load_state_dict: the tensor given for '{}' is undefined", name);
    if (source.sizes() != target.sizes()) {
      mismatches.push_back(fmt::format("shape mismatch for '{}': expected {} but got {}", name,
                                       shape_str(target.sizes()), shape_str(source.sizes())));
    }
  }
  std::vector<std::string> unexpected;
  for (const auto& [name, t] : dict) {
    if (own_names.count(name) == 0) unexpected.push_back(name);
  }

  std::vector<std::string> problems;
  if (strict && !missing.empty()) {
    problems.push_back(
        fmt::format("missing {} {}", missing.size() == 1 ? "key" : "keys", quoted_list(missing)));
  }
  if (strict && !unexpected.empty()) {
    problems.push_back(fmt::format("unexpected {} {}", unexpected.size() == 1 ? "key" : "keys",
                                   quoted_list(unexpected)));
  }
  problems.insert(problems.end(), mismatches.begin(), mismatches.end());
  TT_CHECK(problems.empty(), "load_state_dict: {}", fmt::join(problems, "; "));

  // Every conversion (dtype, then device) happens before the first copy: a source
  // that cannot be converted (float16 today) fails the load with no parameter changed.
  std::vector<std::pair<Tensor, Tensor>> copies;  // (target, converted source)
  for (auto& [name, target] : own) {
    const auto it = dict.find(name);
    if (it == dict.end() || it->second.is_same(target)) continue;
    try {
      copies.emplace_back(target, it->second.to(target.dtype()).to(target.device()));
    } catch (const Error& e) {
      TT_FAIL(
          "load_state_dict: the tensor given for '{}' cannot be loaded into a {} parameter "
          "({}); no parameter was changed",
          name, dtype_name(target.dtype()), e.what());
    }
  }
  for (auto& [target, source] : copies) target.copy_(source);
}

void Module::train(bool on) {
  training_ = on;
  for (auto& [name, child] : children_) child->train(on);
}

void Module::to(Device device) {
  NamedTensors all = named_parameters();
  for (auto& entry : named_buffers()) all.push_back(entry);
  for (auto& [name, t] : all) {
    // A tensor shared by two modules appears twice; the second time it has moved.
    if (t.device() != device) t.set_data(t.to(device));
  }
}

Device Module::device() const {
  const NamedTensors params = named_parameters();
  if (!params.empty()) return params.front().second.device();
  const NamedTensors buffers = named_buffers();
  if (!buffers.empty()) return buffers.front().second.device();
  return Device::cpu();
}

// Parameters, buffers and submodules share one namespace of local names.
void Module::check_name_unused(const char* caller, const std::string& name) const {
  TT_CHECK(!has_name(params_, name), "{}: '{}' is already a parameter", caller, name);
  TT_CHECK(!has_name(buffers_, name), "{}: '{}' is already a buffer", caller, name);
  TT_CHECK(!has_name(children_, name), "{}: '{}' is already a submodule", caller, name);
}

// register_parameter and register_buffer: the same checks, a different list.
Tensor Module::register_tensor(const char* caller, NamedTensors& list, const std::string& name,
                               Tensor t) {
  check_local_name(caller, name);
  TT_CHECK(t.defined(), "{}: the tensor for '{}' is undefined", caller, name);
  check_name_unused(caller, name);
  list.emplace_back(name, t);
  return t;
}

Tensor Module::register_parameter(const std::string& name, Tensor t) {
  return register_tensor("register_parameter", params_, name, std::move(t));
}

Tensor Module::register_buffer(const std::string& name, Tensor t) {
  return register_tensor("register_buffer", buffers_, name, std::move(t));
}

void Module::add_child(const std::string& name, std::shared_ptr<Module> m) {
  check_local_name("register_module", name);
  TT_CHECK(m != nullptr, "register_module: the submodule '{}' is null", name);
  TT_CHECK(m.get() != this, "register_module: a module cannot be its own submodule '{}'", name);
  check_name_unused("register_module", name);
  children_.emplace_back(name, std::move(m));
}

}  // namespace tt
