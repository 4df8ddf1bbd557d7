// The registry of filters: Program -> Program rewrite passes, looked up by name.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/program.h"
#include "core/registry.h"

namespace hassium {

// A filter rewrites a flushed program before the VEM sees it (filters/ holds one per file).
// It must keep the program's meaning: same values in every SYNC'd base, same FREEs. A flushed
// program's `bases` may list none of its bases (the instructions name them); a filter that needs
// the list calls Program::collect_bases().
using FilterFn = std::function<Program(Program)>;

struct NamedFilter {
  std::string name;
  FilterFn fn;
};

// The filters by name (id "stack.filters"), in registration order: linking hassium_filters adds
// the built-in ones (filters/registry.cpp); a program may add its own. Thread-safe.
Registry<FilterFn>& filter_registry();
// The filters of a comma-separated list (e.g. the [stack] filters key), in list order.
// Blanks around names are ignored; an empty list gives no filters. Throws UserError naming
// an unknown filter and listing the valid ones.
std::vector<NamedFilter> resolve_filters(std::string_view list);

} // namespace hassium
