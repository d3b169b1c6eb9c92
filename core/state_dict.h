// tt::StateDict: name -> tensor in insertion order, as PyTorch's OrderedDict state
// dicts (Module::state_dict() lists a module's parameters, then its buffers, then each
// submodule's, in registration order). Lookups by name are hashed; the std::map
// conversions keep code written against the sorted map of earlier versions (and
// safetensors::save / File::tensors) working.
#pragma once

#include <cstddef>
#include <initializer_list>
#include <iterator>
#include <list>
#include <map>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/tensor.h"

namespace tt {

class StateDict {
 public:
  using value_type = std::pair<const std::string, Tensor>;
  using iterator = std::list<value_type>::iterator;
  using const_iterator = std::list<value_type>::const_iterator;

  StateDict() = default;
  StateDict(std::initializer_list<std::pair<std::string, Tensor>> items) {
    for (const auto& [k, v] : items) insert_or_assign(k, v);
  }
  StateDict(const std::map<std::string, Tensor>& sorted) {  // NOLINT: implicit on purpose
    for (const auto& [k, v] : sorted) insert_or_assign(k, v);
  }
  StateDict(const StateDict& o) { *this = o; }
  StateDict& operator=(const StateDict& o) {
    if (this == &o) return *this;
    clear();
    for (const auto& [k, v] : o) insert_or_assign(k, v);
    return *this;
  }
  StateDict(StateDict&&) noexcept = default;  // list iterators stay valid across moves
  StateDict& operator=(StateDict&&) noexcept = default;
  operator std::map<std::string, Tensor>() const {  // NOLINT: implicit on purpose
    return std::map<std::string, Tensor>(begin(), end());
  }

  iterator begin() { return items_.begin(); }
  iterator end() { return items_.end(); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.end(); }
  size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  void clear() {
    items_.clear();
    index_.clear();
  }

  iterator find(const std::string& key) {
    const auto it = index_.find(key);
    return it == index_.end() ? items_.end() : it->second;
  }
  const_iterator find(const std::string& key) const {
    const auto it = index_.find(key);
    return it == index_.end() ? items_.end() : const_iterator(it->second);
  }
  size_t count(const std::string& key) const { return index_.count(key); }
  bool contains(const std::string& key) const { return count(key) != 0; }

  Tensor& at(const std::string& key) {
    const auto it = find(key);
    TT_CHECK(it != end(), "StateDict: there is no key '{}'", key);
    return it->second;
  }
  const Tensor& at(const std::string& key) const {
    const auto it = find(key);
    TT_CHECK(it != end(), "StateDict: there is no key '{}'", key);
    return it->second;
  }
  // A new key goes to the end; an existing one keeps its place.
  Tensor& operator[](const std::string& key) { return emplace(key, Tensor()).first->second; }
  std::pair<iterator, bool> emplace(const std::string& key, Tensor value) {
    const auto it = find(key);
    if (it != end()) return {it, false};
    items_.emplace_back(key, std::move(value));
    const iterator last = std::prev(items_.end());
    index_.emplace(key, last);
    return {last, true};
  }
  std::pair<iterator, bool> insert_or_assign(const std::string& key, Tensor value) {
    auto [it, inserted] = emplace(key, value);
    if (!inserted) it->second = std::move(value);
    return {it, inserted};
  }
  size_t erase(const std::string& key) {
    const auto it = index_.find(key);
    if (it == index_.end()) return 0;
    items_.erase(it->second);
    index_.erase(it);
    return 1;
  }
  std::vector<std::string> keys() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : items_) out.push_back(k);
    return out;
  }

 private:
  std::list<value_type> items_;
  std::unordered_map<std::string, iterator> index_;
};

}  // namespace tt
