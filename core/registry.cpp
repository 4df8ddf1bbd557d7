// Registries: the messages every registry shares, and the catalog of published ones.
#include "core/registry.h"

#include "core/error.h"

namespace hassium {

namespace {
std::mutex g_catalog_mutex;
std::vector<const RegistryBase*>& catalog() {
  static std::vector<const RegistryBase*> list;
  return list;
}
} // namespace

std::string RegistryBase::joined_names() const {
  std::string out;
  for (const std::string& n : names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

void RegistryBase::throw_unknown(std::string_view name) const {
  std::string valid = joined_names();
  throw UserError("unknown " + what_ + " '" + std::string(name) +
                  "'; valid: " + (valid.empty() ? "(none in this build)" : valid));
}

void RegistryBase::throw_duplicate(std::string_view name) const {
  throw InternalError(what_ + " '" + std::string(name) + "' is registered twice (registry " + id_ +
                      ")");
}

void publish_registry(const RegistryBase& registry) {
  std::lock_guard lock(g_catalog_mutex);
  for (const RegistryBase* r : catalog()) {
    if (r == &registry) return;
    HS_INTERNAL_ASSERT(r->id() != registry.id())
        << "two registries are published as '" << registry.id() << "'";
  }
  catalog().push_back(&registry);
}

const RegistryBase* published_registry(std::string_view id) {
  std::lock_guard lock(g_catalog_mutex);
  for (const RegistryBase* r : catalog())
    if (r->id() == id) return r;
  return nullptr;
}

std::vector<const RegistryBase*> published_registries() {
  std::lock_guard lock(g_catalog_mutex);
  return catalog();
}

} // namespace hassium
