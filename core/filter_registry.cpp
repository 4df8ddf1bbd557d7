// The registry of filters: a name -> function map behind a mutex.
#include "core/filter_registry.h"

#include <map>
#include <mutex>

#include "core/error.h"

namespace hassium {

namespace {
struct Registry {
  std::mutex mutex;
  std::map<std::string, FilterFn, std::less<>> filters;
};
Registry& registry() {
  static Registry r;
  return r;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}
} // namespace

void register_filter(std::string name, FilterFn fn) {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  r.filters[std::move(name)] = std::move(fn);
}

std::vector<std::string> filter_names() {
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  std::vector<std::string> names;
  for (const auto& [name, fn] : r.filters) names.push_back(name);
  return names;
}

std::vector<NamedFilter> resolve_filters(std::string_view list) {
  std::vector<NamedFilter> out;
  auto& r = registry();
  std::lock_guard lock(r.mutex);
  while (!list.empty()) {
    size_t comma = list.find(',');
    std::string_view name = trim(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view() : list.substr(comma + 1);
    if (name.empty()) continue;
    auto it = r.filters.find(name);
    if (it == r.filters.end()) {
      std::string valid;
      for (const auto& [n, fn] : r.filters) valid += (valid.empty() ? "" : ", ") + n;
      HS_USER_ERROR() << "unknown filter '" << name << "' in [stack] filters; valid filters: "
                      << (valid.empty() ? "(none registered)" : valid);
    }
    out.push_back({it->first, it->second});
  }
  return out;
}

} // namespace hassium
