// The non-template checks behind Descriptor<C> (see the header).
#include "autotune/descriptor.h"

namespace tt::autotune::detail {

void check_field_name(const std::string& family, const std::string& name,
                      const std::vector<std::string>& known) {
  TT_CHECK(std::find(known.begin(), known.end(), name) == known.end(),
           "{}: field '{}' is declared twice", family, name);
  Config probe;
  try {
    probe.set(name, 0);  // rejects names that are not identifiers, and "impl"
  } catch (const Error&) {
    TT_FAIL("{}: field name '{}' must be an identifier other than 'impl'", family, name);
  }
}

void check_impls_declared(const std::string& family, const std::string& what,
                          const std::vector<std::string>& impls,
                          const std::vector<std::string>& declared) {
  for (const auto& impl : impls) {
    TT_CHECK(std::find(declared.begin(), declared.end(), impl) != declared.end(),
             "{}: {} applies to impl '{}', which is not declared (declare impl() first)", family,
             what, impl);
  }
}

bool applies_to(const std::vector<std::string>& impls, const std::string& impl) {
  return impls.empty() || std::find(impls.begin(), impls.end(), impl) != impls.end();
}

std::string text_of(const Config& c) { return c.empty() ? "(empty)" : c.str(); }

}  // namespace tt::autotune::detail
