// Family descriptors: a tunable kernel family declares its config once.
//
// A family's config is a plain struct of integer fields (and, when the family has
// several implementations, an enum or int member that picks one). Its Descriptor is
// the table that says, once:
//   - impl:        which member picks the implementation and how each value is
//                  spelled ("own", "cublaslt"); optional (one implementation: none);
//   - fields:      text name, struct member, candidate values, and which impls read
//                  it (none listed: every impl). For an impl that does not read a
//                  field the struct gets the field's implied value (default: the
//                  member's value in C{}; a function of the other fields if given);
//   - constraints: named rules {reason, predicate on C, impls} that hold whatever
//                  the problem ("one of the compiled variants", ...).
// Everything else is derived, so it cannot drift from the table:
//   to_config / from_config   the autotune::Config of a C and back (database, lookup)
//   str / parse               the text form "impl=own,bm=128,bn=64" (= Config::str)
//   why_invalid / check       validation: impl known, candidates, every constraint
//   equal                     same impl and same values of the fields it reads
//   space(kernel, ...)        the autotune::ParamSpace: one axis per field, the
//                             descriptor's constraints plus the problem's and the
//                             device's (typed predicates too), the default
//
// Example (a family with one implementation; a second one would add .impl(...) and
// list the impls that read each field):
//   struct TileConfig { int threads = 256; int vec = 4; };
//   const autotune::Descriptor<TileConfig>& tile_descriptor() {
//     static const auto d = autotune::Descriptor<TileConfig>("tile")
//         .field("threads", &TileConfig::threads, {128, 256, 512})
//         .field("vec", &TileConfig::vec, {1, 2, 4})
//         .constraint("threads*vec must not exceed 1024",
//                     [](const TileConfig& c) { return c.threads * c.vec <= 1024; });
//     return d;
//   }
//   TileConfig c = tile_descriptor().parse("threads=128,vec=4");   // throws tt::Error
//   autotune::ParamSpace space = tile_descriptor().space(
//       "my_op", {{"vec must divide n", [n](const TileConfig& c) { return n % c.vec == 0; }}},
//       TileConfig{});
//
// Descriptors are built once (a function-local static) and then only read; the
// spaces they build share the table, so a space may outlive the Descriptor object.
// A copy may be extended (more fields, constraints) without changing the original:
//   auto scheduled = Descriptor<GemmConfig>(gemm_descriptor()).field("chunk", ...);
#pragma once

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "autotune/config.h"
#include "autotune/space.h"
#include "core/error.h"

namespace tt::autotune {

// The distinct values of `member` over the entries of `table` that `keep` accepts, in
// table order: the candidates of a field whose variants are a compiled table.
template <class C, class T, class Keep>
std::vector<int64_t> distinct_values(const std::vector<C>& table, T C::*member, Keep keep) {
  std::vector<int64_t> out;
  for (const C& c : table) {
    if (!keep(c)) continue;
    const auto v = static_cast<int64_t>(c.*member);
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  return out;
}
template <class C, class T>
std::vector<int64_t> distinct_values(const std::vector<C>& table, T C::*member) {
  return distinct_values(table, member, [](const C&) { return true; });
}

namespace detail {
// Non-template checks shared by every Descriptor<C> (descriptor.cpp).
void check_field_name(const std::string& family, const std::string& name,
                      const std::vector<std::string>& known);
void check_impls_declared(const std::string& family, const std::string& what,
                          const std::vector<std::string>& impls,
                          const std::vector<std::string>& declared);
bool applies_to(const std::vector<std::string>& impls, const std::string& impl);
std::string text_of(const Config& c);  // "(empty)" for the empty config
}  // namespace detail

template <class C>
class Descriptor {
 public:
  using Predicate = std::function<bool(const C&)>;
  using Implied = std::function<int64_t(const C&)>;
  struct Constraint {
    std::string reason;  // the rule, as a sentence: what a rejected config reports
    Predicate holds;
    std::vector<std::string> impls = {};  // empty: every impl
    // Set by compiled(): holds when the config equals an entry (then `holds` is unset).
    std::shared_ptr<const std::vector<C>> table = nullptr;
  };

  // `family` names the config in error messages ("segment norm config ...").
  explicit Descriptor(std::string family) : d_(std::make_shared<Data>()) {
    d_->family = std::move(family);
  }

  // The member that picks the implementation, and each value's spelling, in the
  // order the space lists them. Declare it before fields and constraints that name impls.
  template <class E>
  Descriptor& impl(E C::*member, std::vector<std::pair<std::string, E>> names) {
    Data& d = data();
    TT_CHECK(d.impl_names.empty(), "{}: the impl member is declared twice", d.family);
    TT_CHECK(!names.empty(), "{}: impl() needs at least one implementation", d_->family);
    std::vector<E> values;
    for (auto& [name, value] : names) {
      TT_CHECK(std::find(values.begin(), values.end(), value) == values.end(),
               "{}: impl '{}' reuses the value of another impl", d_->family, name);
      d.impl_names.push_back(name);
      values.push_back(value);
    }
    d.impl_index = [member, values](const C& c) -> int {
      const auto it = std::find(values.begin(), values.end(), c.*member);
      return it == values.end() ? -1 : static_cast<int>(it - values.begin());
    };
    d.set_impl = [member, values](C& c, int i) { c.*member = values[static_cast<size_t>(i)]; };
    return *this;
  }

  // A field: its text name, the member it lives in, its candidate values, the impls
  // that read it (empty: all), and for the others the value it takes (nullptr: the
  // member's value in C{}).
  template <class T>
  Descriptor& field(std::string name, T C::*member, std::vector<int64_t> candidates,
                    std::vector<std::string> impls = {}, Implied implied = nullptr) {
    std::vector<std::string> known;
    for (const Field& f : d_->fields) known.push_back(f.name);
    detail::check_field_name(d_->family, name, known);
    detail::check_impls_declared(d_->family, "field '" + name + "'", impls, d_->impl_names);
    TT_CHECK(!candidates.empty(), "{}: field '{}' needs at least one candidate value", d_->family,
             name);
    for (int64_t v : candidates) {
      TT_CHECK(fits<T>(v), "{}: candidate {}={} does not fit the member's type", d_->family, name,
               v);
    }
    Field f;
    f.name = std::move(name);
    f.candidates = std::move(candidates);
    f.impls = std::move(impls);
    f.get = [member](const C& c) { return static_cast<int64_t>(c.*member); };
    f.set = [member](C& c, int64_t v) { c.*member = static_cast<T>(v); };
    f.fits = [](int64_t v) { return fits<T>(v); };
    f.implied = implied ? std::move(implied)
                        : Implied([member](const C&) { return static_cast<int64_t>(C{}.*member); });
    data().fields.push_back(std::move(f));
    return *this;
  }

  Descriptor& constraint(std::string reason, Predicate holds, std::vector<std::string> impls = {}) {
    TT_CHECK(!reason.empty() && holds, "{}: a constraint needs a reason and a predicate",
             d_->family);
    detail::check_impls_declared(d_->family, "constraint '" + reason + "'", impls, d_->impl_names);
    data().constraints.push_back({std::move(reason), std::move(holds), std::move(impls)});
    return *this;
  }

  // The common constraint "must be one of the compiled variants": equal() to an entry
  // of `table` (only the fields the config's impl reads are compared).
  Descriptor& compiled(std::string reason, std::vector<C> table,
                       std::vector<std::string> impls = {}) {
    TT_CHECK(!reason.empty() && !table.empty(), "{}: compiled() needs a reason and a table",
             d_->family);
    detail::check_impls_declared(d_->family, "constraint '" + reason + "'", impls, d_->impl_names);
    Constraint k{std::move(reason), nullptr, std::move(impls)};
    k.table = std::make_shared<const std::vector<C>>(std::move(table));
    data().constraints.push_back(std::move(k));
    return *this;
  }

  const std::string& family() const { return d_->family; }
  const std::vector<std::string>& impls() const { return d_->impl_names; }
  // The field names `impl` reads, in declaration order ("" when there is no impl member).
  std::vector<std::string> fields_of(const std::string& impl = "") const {
    std::vector<std::string> out;
    for (const Field& f : d_->fields) {
      if (detail::applies_to(f.impls, impl)) out.push_back(f.name);
    }
    return out;
  }

  // "own", ...; "" without an impl member. Throws tt::Error for a value with no name.
  std::string impl_name(const C& c) const {
    if (d_->impl_names.empty()) return "";
    const int i = d_->impl_index(c);
    TT_CHECK(i >= 0, "{}: the config's impl value has no name (one of {})", d_->family,
             fmt::join(d_->impl_names, "|"));
    return d_->impl_names[static_cast<size_t>(i)];
  }

  // The impl and the fields it reads, in declaration order.
  Config to_config(const C& c) const {
    Config out;
    const std::string impl = impl_name(c);
    out.set_impl(impl);
    for (const Field& f : d_->fields) {
      if (detail::applies_to(f.impls, impl)) out.set(f.name, f.get(c));
    }
    return out;
  }

  // Throws tt::Error naming the config for an unknown impl, a missing field, a field
  // the impl does not read, or a value the member cannot hold. Candidates and
  // constraints are not checked here (why_invalid, check).
  C from_config(const Config& config) const {
    C c{};
    std::string impl = config.impl();
    if (d_->impl_names.empty()) {
      TT_CHECK(impl.empty(), "{} config {}: impl '{}' is given but the family has no impl",
               d_->family, detail::text_of(config), impl);
    } else {
      const auto it = std::find(d_->impl_names.begin(), d_->impl_names.end(), impl);
      TT_CHECK(it != d_->impl_names.end(), "{} config {}: impl must be one of {} but got '{}'",
               d_->family, detail::text_of(config), fmt::join(d_->impl_names, "|"), impl);
      d_->set_impl(c, static_cast<int>(it - d_->impl_names.begin()));
    }
    for (const Config::Value& v : config.values()) {
      const std::string& name = v.first;
      const auto f = std::find_if(d_->fields.begin(), d_->fields.end(),
                                  [&](const Field& x) { return x.name == name; });
      TT_CHECK(f != d_->fields.end() && detail::applies_to(f->impls, impl),
               "{} config {}: '{}' is not a field of {}{}", d_->family, detail::text_of(config),
               name, d_->family, impl.empty() ? "" : " impl=" + impl);
    }
    for (const Field& f : d_->fields) {
      if (!detail::applies_to(f.impls, impl)) continue;
      TT_CHECK(config.has(f.name), "{} config {} has no field '{}'", d_->family,
               detail::text_of(config), f.name);
      const int64_t v = config.get(f.name);
      TT_CHECK(f.fits(v), "{} config {}: {}={} is out of range", d_->family,
               detail::text_of(config), f.name, v);
      f.set(c, v);
    }
    // Implied values last: they may be functions of the fields just read.
    for (const Field& f : d_->fields) {
      if (!detail::applies_to(f.impls, impl)) f.set(c, f.implied(c));
    }
    return c;
  }

  std::string str(const C& c) const { return to_config(c).str(); }
  C parse(std::string_view text) const { return from_config(Config::parse(text)); }

  // nullopt when c's impl is named, each field it reads holds a candidate, and every
  // constraint (the descriptor's, then `extra`) that applies holds; else the first
  // reason it is rejected (a constraint's reason verbatim).
  std::optional<std::string> why_invalid(const C& c,
                                         const std::vector<Constraint>& extra = {}) const {
    std::string impl;
    if (!d_->impl_names.empty()) {
      const int i = d_->impl_index(c);
      if (i < 0) return fmt::format("impl is not one of {}", fmt::join(d_->impl_names, "|"));
      impl = d_->impl_names[static_cast<size_t>(i)];
    }
    for (const Field& f : d_->fields) {
      if (!detail::applies_to(f.impls, impl)) continue;
      const int64_t v = f.get(c);
      if (std::find(f.candidates.begin(), f.candidates.end(), v) == f.candidates.end()) {
        return fmt::format("{}={} is not a candidate ({})", f.name, v,
                           fmt::join(f.candidates, "|"));
      }
    }
    const std::vector<Constraint>& own = d_->constraints;
    for (const std::vector<Constraint>* list : {&own, &extra}) {
      for (const Constraint& k : *list) {
        if (detail::applies_to(k.impls, impl) && !holds_in(*d_, k, c)) return k.reason;
      }
    }
    return std::nullopt;
  }
  bool valid(const C& c, const std::vector<Constraint>& extra = {}) const {
    return !why_invalid(c, extra).has_value();
  }
  // Throws tt::Error "<what>: config <text> is rejected: <reason>".
  void check(const C& c, const std::string& what, const std::vector<Constraint>& extra = {}) const {
    if (auto why = why_invalid(c, extra)) {
      const bool named = d_->impl_names.empty() || d_->impl_index(c) >= 0;
      TT_FAIL("{}: config {} is rejected: {}", what, named ? str(c) : "(unnamed impl)", *why);
    }
  }

  // Same impl and the same values in the fields that impl reads.
  bool equal(const C& a, const C& b) const { return equal_in(*d_, a, b); }

  // The parameter space of a launch site named `kernel`: the impl axis, one axis per
  // field (for the impls that read it), the descriptor's constraints, then `extra`
  // (the problem's and the device's), and `default_config` as the default. `impls`
  // (non-empty: a subset of impls(), in the order given) offers only those impls: a
  // field or constraint that only the others read is left out.
  //
  // `narrowed` gives some impls fewer candidates of a field in this space (a subset of the
  // field's): {field, impls, candidates}; the field's other impls keep all of them. A
  // family whose valid configs are a small part of the product (a compiled table's rows
  // for one mode) keeps the space's product, and so its enumeration, small.
  struct Narrowing {
    std::string field;
    std::vector<std::string> impls;
    std::vector<int64_t> candidates;
  };
  ParamSpace space(std::string kernel, std::vector<Constraint> extra, const C& default_config,
                   std::vector<std::string> impls = {},
                   const std::vector<Narrowing>& narrowed = {}) const {
    for (const auto& impl : impls) {
      TT_CHECK(
          std::find(d_->impl_names.begin(), d_->impl_names.end(), impl) != d_->impl_names.end(),
          "{}: space() offers impl '{}', which is not declared", d_->family, impl);
    }
    const bool subset = !impls.empty();
    if (!subset) impls = d_->impl_names;
    // The impls of `listed` that the space offers; nullopt when none (then the field or
    // constraint is left out).
    const auto kept =
        [&](const std::vector<std::string>& listed) -> std::optional<std::vector<std::string>> {
      if (!subset || listed.empty()) return listed;
      std::vector<std::string> out;
      for (const auto& i : listed) {
        if (std::find(impls.begin(), impls.end(), i) != impls.end()) out.push_back(i);
      }
      if (out.empty()) return std::nullopt;
      return out;
    };
    ParamSpace space(std::move(kernel));
    if (!impls.empty()) space.impls(impls);
    for (const Field& f : d_->fields) {
      auto on = kept(f.impls);
      if (!on) continue;
      if (impls.empty()) {  // no impl member: nothing to narrow per impl
        space.axis(f.name, f.candidates);
        continue;
      }
      if (on->empty()) on = impls;  // every impl: listed, so that narrowing can split them
      for (const Narrowing& n : narrowed) {
        if (n.field != f.name) continue;
        std::vector<std::string> those;
        for (const auto& i : n.impls) {
          const auto it = std::find(on->begin(), on->end(), i);
          if (it == on->end()) continue;
          those.push_back(i);
          on->erase(it);
        }
        for (int64_t v : n.candidates) {
          TT_CHECK(std::find(f.candidates.begin(), f.candidates.end(), v) != f.candidates.end(),
                   "{}: narrowing field '{}' to {} is not a subset of its candidates", d_->family,
                   f.name, v);
        }
        if (!those.empty()) space.axis(f.name, n.candidates, those);
      }
      if (!on->empty()) space.axis(f.name, f.candidates, *on);
    }
    const auto add = [&](const Constraint& k) {
      const auto on = kept(k.impls);
      if (!on) return;
      space.constraint(
          k.reason,
          [view = Descriptor(d_), k](const Config& c) {
            return holds_in(*view.d_, k, view.from_config(c));
          },
          *on);
    };
    for (const Constraint& k : d_->constraints) add(k);
    for (const Constraint& k : extra) add(k);
    space.set_default(to_config(default_config));
    return space;
  }

  // The configs of `space` (built by space()) as structs, in its enumeration order.
  std::vector<C> enumerate(const ParamSpace& space) const {
    std::vector<C> out;
    for (const Config& c : space.enumerate()) out.push_back(from_config(c));
    return out;
  }

 private:
  struct Field {
    std::string name;
    std::vector<int64_t> candidates;
    std::vector<std::string> impls;
    std::function<int64_t(const C&)> get;
    std::function<void(C&, int64_t)> set;
    std::function<bool(int64_t)> fits;
    Implied implied;
  };
  struct Data {
    std::string family;
    std::vector<std::string> impl_names;
    std::function<int(const C&)> impl_index;
    std::function<void(C&, int)> set_impl;
    std::vector<Field> fields;
    std::vector<Constraint> constraints;
  };

  template <class T>
  static bool fits(int64_t v) {
    static_assert(std::is_integral_v<T> && (std::is_signed_v<T> || sizeof(T) < 8),
                  "descriptor fields are integers that int64_t holds");
    return v >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           v <= static_cast<int64_t>(std::numeric_limits<T>::max());
  }

  static bool holds_in(const Data& d, const Constraint& k, const C& c) {
    if (!k.table) return k.holds(c);
    return std::any_of(k.table->begin(), k.table->end(),
                       [&](const C& t) { return equal_in(d, c, t); });
  }

  // The table to modify: copied first when another Descriptor or a space shares it, so
  // extending a copy (a family's descriptor plus a plan's schedule fields) leaves the
  // original and the spaces built from it unchanged.
  Data& data() {
    if (d_.use_count() > 1) d_ = std::make_shared<Data>(*d_);
    return *d_;
  }

  static bool equal_in(const Data& d, const C& a, const C& b) {
    std::string impl;
    if (!d.impl_names.empty()) {
      const int i = d.impl_index(a);
      if (i != d.impl_index(b)) return false;
      if (i >= 0) impl = d.impl_names[static_cast<size_t>(i)];
    }
    return std::all_of(d.fields.begin(), d.fields.end(), [&](const Field& f) {
      return !detail::applies_to(f.impls, impl) || f.get(a) == f.get(b);
    });
  }

  // Another handle on the same table, for the spaces' predicates (which may outlive *this).
  explicit Descriptor(std::shared_ptr<Data> d) : d_(std::move(d)) {}

  std::shared_ptr<Data> d_;
};

}  // namespace tt::autotune
