// The registry of filters, and the resolution of a list of their names.
#include "core/filter_registry.h"

namespace hassium {

namespace {
std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
} // namespace

Registry<FilterFn>& filter_registry() {
  static Registry<FilterFn> registry("stack.filters", "filter");
  return registry;
}

std::vector<NamedFilter> resolve_filters(std::string_view list) {
  std::vector<NamedFilter> out;
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view name = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    const auto& entry = filter_registry().find(name);
    out.push_back({entry.name, entry.value});
  }
  return out;
}

} // namespace hassium
