// The one list of filters: name -> pass, added to the core registry at start-up.
#include <mutex>

#include "core/config.h"
#include "core/filter_registry.h"
#include "filters/filters.h"

namespace hassium {

namespace {

// THE list. Passes that take options read them from the process configuration at each flush
// (so HASSIUM_FILTERS_* set before a flush apply to it).
const std::vector<RegistryEntry<FilterFn>>& entries() {
  static const std::vector<RegistryEntry<FilterFn>> list = {
      {"expand_power", [](Program p) { return expand_power(std::move(p)); },
       "POWER by a small constant exponent -> multiplications, bit-identical to NumPy"},
      {"split_reduction",
       [](Program p) {
         return split_reduction(std::move(p),
                                SplitReductionOptions::from_config(*Config::global()));
       },
       "a reduction over one long axis -> two over a (rows, cols) reshape of it"},
      {"remove_identity", [](Program p) { return remove_identity(std::move(p)); },
       "copies that only rename a temporary are dropped"},
      {"forward_copies", [](Program p) { return forward_copies(std::move(p)); },
       "temporary copies of a view that is read or updated in place -> the view itself"},
      {"fold_constants", [](Program p) { return fold_constants(std::move(p)); },
       "element-wise operations of constants -> a fill with the computed value"},
      {"remove_dead", [](Program p) { return remove_dead(std::move(p)); },
       "instructions whose output is FREEd unread are removed"},
      {"trace",
       [](Program p) { return trace(std::move(p), TraceOptions::from_config(*Config::global())); },
       "appends each flush's bytecode to [filters] trace_file"},
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
    for (const auto& e : entries()) filter_registry().add(e);
  });
}

} // namespace hassium
