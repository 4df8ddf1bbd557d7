// The one list of filters: name -> pass, registered with the core registry at start-up.
#include <mutex>

#include "core/config.h"
#include "core/filter_registry.h"
#include "filters/filters.h"

namespace hassium {

namespace {

struct Entry {
  const char* name;
  FilterFn fn;
};

// THE list. Passes that take options read them from the process configuration at each flush
// (so HASSIUM_FILTERS_* set before a flush apply to it).
const std::vector<Entry>& entries() {
  static const std::vector<Entry> list = {
      {"expand_power", [](Program p) { return expand_power(std::move(p)); }},
      {"split_reduction",
       [](Program p) {
         return split_reduction(std::move(p),
                                SplitReductionOptions::from_config(*Config::global()));
       }},
      {"remove_identity", [](Program p) { return remove_identity(std::move(p)); }},
      {"forward_copies", [](Program p) { return forward_copies(std::move(p)); }},
      {"fold_constants", [](Program p) { return fold_constants(std::move(p)); }},
      {"remove_dead", [](Program p) { return remove_dead(std::move(p)); }},
      {"trace",
       [](Program p) { return trace(std::move(p), TraceOptions::from_config(*Config::global())); }},
  };
  return list;
}

// Runs when the program starts: hassium_filters is linked whole (filters/CMakeLists.txt), so
// this object is always part of a program that links the library.
const bool registered = [] {
  register_builtin_filters();
  return true;
}();

} // namespace

std::vector<std::string> builtin_filter_names() {
  std::vector<std::string> names;
  for (const auto& e : entries()) names.emplace_back(e.name);
  return names;
}

void register_builtin_filters() {
  static std::once_flag once;
  std::call_once(once, [] {
    for (const auto& e : entries()) register_filter(e.name, e.fn);
  });
}

} // namespace hassium
