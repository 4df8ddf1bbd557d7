// Configuration: the keys of core/config_keys.def, read from an INI file and HASSIUM_* env vars.
//
// A value comes from, in rising priority: the default in config_keys.def; the first config
// file of the search order ($HASSIUM_CONFIG, ~/.config/hassium/config.ini, the installed
// config.ini, the source tree's config.ini); the env var HASSIUM_<SECTION>_<KEY>. Each value
// remembers where it came from. Everything is checked when a Config is built: unknown
// sections and keys (file:line, with the valid names), unknown HASSIUM_<SECTION>_* env vars,
// ints, bools, doubles, fixed choices, and the names of components against the registry of
// what this build has (core/registry.h), when that registry is published (a program that links
// no stack publishes none: the owner of the key checks its value where it uses it).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/registry.h"

namespace hassium {

enum class ConfigType : uint8_t {
  k_string,
  k_int,
  k_bool,
  k_double,
  k_list,
  k_choice,
  k_component,
  k_component_list
};
std::string_view config_type_name(ConfigType t);

// One line of core/config_keys.def.
struct ConfigKey {
  std::string_view section;
  std::string_view key;
  ConfigType type;
  std::string_view default_value;
  std::string_view valid; // choice: names separated by '|'; component(_list): a registry id
  std::string_view doc;

  std::string env_name() const; // HASSIUM_<SECTION>_<KEY>
  // choice: the fixed names; component(_list): the published registry's (empty when unpublished).
  std::vector<std::string> valid_values() const;
  // component(_list): the registry published under `valid`, or null (also for other types).
  const RegistryBase* registry() const;
};

// Every key, in the order of config_keys.def.
std::span<const ConfigKey> config_keys();

// Environment variables as the config sees them (name -> value). Tests pass their own.
using Environment = std::map<std::string, std::string>;
// The HASSIUM_* variables and HOME of this process (HOME from the password database if unset).
Environment process_environment();

// Where a value came from.
struct ConfigSource {
  enum class Kind : uint8_t { Default, File, Env };
  Kind kind = Kind::Default;
  std::string name; // the file path or the env var name
  int line = 0;     // File: 1-based line of the key

  std::string str() const; // "default", "/path/config.ini:12", "env HASSIUM_FUSER_ALGORITHM"
};

struct ConfigValue {
  std::string text; // after `~` expansion and quote stripping
  ConfigSource source;
};

class Config {
public:
  // The search order for a config file: the candidates in order (HASSIUM_CONFIG first when set).
  // After HASSIUM_CONFIG and ~/.config/hassium/config.ini come the copies installed with the
  // library holding this code (config_near_library), the install prefix's copy, the source tree's.
  static std::vector<std::string> search_path(const Environment& env);
  // Where an installed config.ini sits relative to the library file `library`: next to it (pip
  // puts libhassium.so and config.ini in site-packages/hassium) and in ../share/hassium (a CMake
  // install under a prefix). Works wherever the files were moved or installed to.
  static std::vector<std::string> config_near_library(const std::string& library);
  // Defaults, then the first file of search_path(env) that exists, then env overrides.
  // $HASSIUM_CONFIG naming a missing file is an error.
  static Config load(const Environment& env);
  // Defaults, then `text` read as the config file named `filename`, then env overrides.
  static Config from_text(std::string_view text, const std::string& filename,
                          const Environment& env = {});
  // Defaults and env overrides only.
  static Config defaults(const Environment& env = {});

  // The process-wide config, loaded from process_environment() on first use (thread-safe).
  // Throws UserError while the configuration is bad; holders keep their copy alive.
  static std::shared_ptr<const Config> global();
  // Rereads the process configuration. On error, throws and keeps the previous one.
  static void reload();
  // Replaces the process-wide config (tests; a frontend that builds its own).
  static void set_global(std::shared_ptr<const Config> config);

  const std::string& get_string(std::string_view section, std::string_view key) const;
  int64_t get_int(std::string_view section, std::string_view key) const;
  bool get_bool(std::string_view section, std::string_view key) const;
  double get_double(std::string_view section, std::string_view key) const;
  std::vector<std::string> get_list(std::string_view section, std::string_view key) const;
  // A choice or component key's value; throws UserError naming the key, its source and the
  // valid names when the value is not one of them. A choice is checked against the fixed list
  // of config_keys.def; a component against its published registry, and not at all when none
  // is published (its owner checks: see component()).
  const std::string& choice(std::string_view section, std::string_view key) const;
  // A component key's value checked against `registry` (published or not).
  const std::string& choice(std::string_view section, std::string_view key,
                            const RegistryBase& registry) const;
  // A component_list key's items, each checked against `registry`.
  std::vector<std::string> choice_list(std::string_view section, std::string_view key,
                                       const RegistryBase& registry) const;
  // The registry entry a component key names: what owners read their key with.
  template <class T>
  const T& component(std::string_view section, std::string_view key,
                     const Registry<T>& registry) const {
    return registry.find(choice(section, key, registry)).value;
  }

  const ConfigValue& value(std::string_view section, std::string_view key) const;
  // The value of config_keys()[i].
  const ConfigValue& value_at(size_t i) const { return values_[i]; }
  // The config file that was read, or empty when none was.
  const std::string& file() const { return file_; }

private:
  Config() = default;
  void read_file_text(std::string_view text, const std::string& filename);
  void apply_env(const Environment& env);
  void finish(const Environment& env);

  std::vector<ConfigValue> values_; // parallel to config_keys()
  std::string file_;
};

} // namespace hassium
