// Fuzzes the tuning database's YAML reader (autotune::parse_database) with arbitrary
// text. Only tt::Error may leave it. Property: a database that parses writes as YAML
// that parses back to the same database (written again: the same text), and merging it
// with itself keeps its entry count.
#include <cstdint>
#include <string>

#include "autotune/database.h"
#include "core/error.h"
#include "tests/fuzz/fuzz_util.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using tt::fuzz::require;
  const std::string text(reinterpret_cast<const char*>(data), size);
  tt::autotune::Database db;
  try {
    db = tt::autotune::parse_database(text, "fuzz input");
  } catch (const tt::Error&) {
    return 0;
  }
  std::string yaml;
  tt::autotune::Database again;
  try {
    yaml = tt::autotune::to_yaml(db);
    again = tt::autotune::parse_database(yaml, "written database");
  } catch (const tt::Error& e) {
    tt::fuzz::property_failed(std::string("a parsed database does not write and read back: ") +
                              e.what());
  }
  require(again.entry_count() == db.entry_count(), "entry count changed in a round trip");
  require(tt::autotune::to_yaml(again) == yaml,
          "the written text changed in a round trip:\n" + yaml);
  require(tt::autotune::merge(db, again).entry_count() == db.entry_count(),
          "merging a database with its round trip changed the entry count");
  return 0;
}
