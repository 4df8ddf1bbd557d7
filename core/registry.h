// Registries: the one list of each kind of component by name, and the catalog that publishes them.
//
// A component kind (engines, VEMs, filters, partition algorithms, cost models, cache modes, ...)
// has one Registry<T>: entries of a name, a value (a factory, a function, an enum) and a one-line
// doc, in registration order. Its owner looks names up with find(), which throws a UserError
// listing the valid names. A registry serves one configuration key, whose "section.key" is its
// id (core/config_keys.def names it as the VALID of a `component` key). Published registries
// (publish_registry) are what config validation, `hassium config --doc`, `hassium info` and the
// README test read: only names of what is built in are ever offered. Core publishes nothing
// itself; the layer that links every component does (vem/stack.h publish_builtin_registries).
#pragma once

#include <deque>
#include <initializer_list>
#include <mutex>
#include <shared_mutex>
#include <string>
#include <string_view>
#include <vector>

namespace hassium {

// What every registry answers without its entries' type: all the catalog's readers need.
class RegistryBase {
public:
  RegistryBase(std::string_view id, std::string_view what) : id_(id), what_(what) {}
  RegistryBase(const RegistryBase&) = delete;
  RegistryBase& operator=(const RegistryBase&) = delete;
  virtual ~RegistryBase() = default;

  // The configuration key whose values it names, "section.key" ("stack.engine").
  const std::string& id() const { return id_; }
  // What one entry is, in messages ("engine", "fusion algorithm").
  const std::string& what() const { return what_; }
  // The names, in registration order.
  virtual std::vector<std::string> names() const = 0;
  virtual bool contains(std::string_view name) const = 0;
  // The entry's one-line doc; empty for an unknown name.
  virtual std::string doc(std::string_view name) const = 0;

  // "a, b, c": the names as messages list them.
  std::string joined_names() const;
  // Throws UserError "unknown <what> '<name>'; valid: a, b".
  [[noreturn]] void throw_unknown(std::string_view name) const;

protected:
  // Throws InternalError: `name` is registered twice.
  [[noreturn]] void throw_duplicate(std::string_view name) const;

private:
  std::string id_, what_;
};

template <class T> struct RegistryEntry {
  std::string name;
  T value;
  std::string doc;
};

// A registry of values of type T by name. Lookups are thread-safe against add(); entries are
// never removed or replaced, so a reference from find() stays valid as long as the registry.
template <class T> class Registry final : public RegistryBase {
public:
  using Entry = RegistryEntry<T>;

  Registry(std::string_view id, std::string_view what, std::initializer_list<Entry> entries = {})
      : RegistryBase(id, what) {
    for (const Entry& e : entries) add(e);
  }

  // The entry of that name, or null.
  const Entry* try_find(std::string_view name) const {
    std::shared_lock lock(mutex_);
    for (const Entry& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }
  // The entry of that name; UserError listing the valid names when there is none.
  const Entry& find(std::string_view name) const {
    if (const Entry* e = try_find(name)) return *e;
    throw_unknown(name);
  }
  // A copy of the entries, in registration order.
  std::vector<Entry> entries() const {
    std::shared_lock lock(mutex_);
    return {entries_.begin(), entries_.end()};
  }
  // Appends an entry (filters, tests). A name registered twice is an InternalError.
  void add(Entry entry) {
    std::unique_lock lock(mutex_);
    for (const Entry& e : entries_)
      if (e.name == entry.name) throw_duplicate(entry.name);
    entries_.push_back(std::move(entry));
  }

  std::vector<std::string> names() const override {
    std::shared_lock lock(mutex_);
    std::vector<std::string> out;
    for (const Entry& e : entries_) out.push_back(e.name);
    return out;
  }
  bool contains(std::string_view name) const override { return try_find(name) != nullptr; }
  std::string doc(std::string_view name) const override {
    const Entry* e = try_find(name);
    return e ? e->doc : std::string();
  }

private:
  mutable std::shared_mutex mutex_;
  std::deque<Entry> entries_; // a deque: add() keeps references to the others valid
};

// Makes `registry` findable by its id(). Publishing the same registry again does nothing; another
// registry of a published id is an InternalError. The registry must live until the process ends
// (a function-local static).
void publish_registry(const RegistryBase& registry);
// The registry published under `id`, or null.
const RegistryBase* published_registry(std::string_view id);
// Every published registry, in publication order.
std::vector<const RegistryBase*> published_registries();

// What a component's probe found (`hassium info`): whether it can run here, and the details
// (versions, devices) or the reason it cannot.
struct ComponentProbe {
  bool usable = false;
  std::string text;
  std::string detail; // a further line, or empty
};

} // namespace hassium
