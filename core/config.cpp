// Configuration: defaults from config_keys.def, one INI file (Boost.PropertyTree), env overrides.
#include "core/config.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <dlfcn.h>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <pwd.h>
#include <sstream>
#include <unistd.h>

#include <boost/property_tree/ini_parser.hpp>
#include <boost/property_tree/ptree.hpp>

#include "core/error.h"

extern char** environ;

namespace hassium {

namespace {

constexpr ConfigKey kKeys[] = {
#define HS_CONFIG_KEY(SECTION, KEY, TYPE, DEFAULT, VALID, DOC)                                     \
  {#SECTION, #KEY, ConfigType::k_##TYPE, DEFAULT, VALID, DOC},
#include "core/config_keys.def"
#undef HS_CONFIG_KEY
};

// Env vars that stand for a key under a shorter name. The full HASSIUM_<SECTION>_<KEY> wins.
struct EnvAlias {
  std::string_view name, section, key;
};
constexpr EnvAlias kEnvAliases[] = {{"HASSIUM_PROFILE", "profile", "enabled"},
                                    {"HASSIUM_DOT_DIR", "profile", "dot_dir"}};

constexpr std::string_view kBoolTrue[] = {"true", "1", "yes", "on"};
constexpr std::string_view kBoolFalse[] = {"false", "0", "no", "off"};

std::string upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string_view trim(std::string_view s) {
  const char* ws = " \t\r\n";
  size_t b = s.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  return s.substr(b, s.find_last_not_of(ws) - b + 1);
}

template <typename Range> std::string join(const Range& names, std::string_view sep = ", ") {
  std::string out;
  for (const auto& n : names) {
    if (!out.empty()) out += sep;
    out += n;
  }
  return out;
}

std::vector<std::string> split(std::string_view s, char sep) {
  std::vector<std::string> out;
  while (true) {
    size_t pos = s.find(sep);
    std::string_view item = trim(s.substr(0, pos));
    if (!item.empty()) out.emplace_back(item);
    if (pos == std::string_view::npos) break;
    s.remove_prefix(pos + 1);
  }
  return out;
}

std::vector<std::string_view> section_names() {
  std::vector<std::string_view> out;
  for (const auto& k : kKeys)
    if (std::find(out.begin(), out.end(), k.section) == out.end()) out.push_back(k.section);
  return out;
}

std::vector<std::string_view> keys_of(std::string_view section) {
  std::vector<std::string_view> out;
  for (const auto& k : kKeys)
    if (k.section == section) out.push_back(k.key);
  return out;
}

// Index of [section] key in kKeys, or -1.
int find_key(std::string_view section, std::string_view key) {
  for (size_t i = 0; i < std::size(kKeys); ++i)
    if (kKeys[i].section == section && kKeys[i].key == key) return static_cast<int>(i);
  return -1;
}

size_t key_index(std::string_view section, std::string_view key) {
  int i = find_key(section, key);
  HS_INTERNAL_ASSERT(i >= 0) << "config key [" << section << "] " << key
                             << " is not in core/config_keys.def";
  return static_cast<size_t>(i);
}

// "[fuser] algorithm 'gredy' (from env HASSIUM_FUSER_ALGORITHM)"
std::string describe(const ConfigKey& k, const ConfigValue& v) {
  return "[" + std::string(k.section) + "] " + std::string(k.key) + " '" + v.text + "' (from " +
         v.source.str() + ")";
}

std::optional<int64_t> parse_int(std::string_view s) {
  int64_t x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return x;
}

std::optional<double> parse_double(std::string_view s) {
  double x = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), x);
  if (s.empty() || ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return x;
}

std::optional<bool> parse_bool(std::string_view s) {
  std::string l = lower(s);
  for (auto t : kBoolTrue)
    if (l == t) return true;
  for (auto f : kBoolFalse)
    if (l == f) return false;
  return std::nullopt;
}

std::string read_whole_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  HS_USER_ASSERT(in) << "cannot read config file " << path;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Where each key and section of an INI text sits. Mirrors the tokenizing of Boost's
// ini_parser (trimmed lines; ';' or '#' comments; [section]; key = value), which gives no
// line numbers of its own.
struct IniLine {
  int line;
  std::string section; // empty for a key before any section
  std::string key;     // empty for a section header
};

std::vector<IniLine> scan_ini(std::string_view text) {
  std::vector<IniLine> out;
  std::string section;
  std::istringstream in{std::string(text)};
  std::string raw;
  for (int line_no = 1; std::getline(in, raw); ++line_no) {
    std::string_view line = trim(raw);
    if (line.empty() || line[0] == ';' || line[0] == '#') continue;
    if (line[0] == '[') {
      section = std::string(trim(line.substr(1, line.find(']') - 1)));
      out.push_back({line_no, section, ""});
    } else {
      out.push_back({line_no, section, std::string(trim(line.substr(0, line.find('='))))});
    }
  }
  return out;
}

std::string home_of(const Environment& env) {
  auto it = env.find("HOME");
  return it == env.end() ? std::string() : it->second;
}

std::mutex g_mutex;
std::shared_ptr<const Config> g_config;

} // namespace

std::string_view config_type_name(ConfigType t) {
  switch (t) {
  case ConfigType::k_string:
    return "string";
  case ConfigType::k_int:
    return "int";
  case ConfigType::k_bool:
    return "bool";
  case ConfigType::k_double:
    return "double";
  case ConfigType::k_list:
    return "list";
  case ConfigType::k_choice:
    return "choice";
  case ConfigType::k_component:
    return "component";
  case ConfigType::k_component_list:
    return "component_list";
  }
  return "?";
}

std::string ConfigKey::env_name() const {
  return "HASSIUM_" + upper(section) + "_" + upper(key);
}

std::vector<std::string> ConfigKey::valid_values() const {
  if (type == ConfigType::k_choice) return split(valid, '|');
  const RegistryBase* r = registry();
  return r ? r->names() : std::vector<std::string>();
}

const RegistryBase* ConfigKey::registry() const {
  if (type != ConfigType::k_component && type != ConfigType::k_component_list) return nullptr;
  return published_registry(valid);
}

std::span<const ConfigKey> config_keys() {
  return kKeys;
}

Environment process_environment() {
  Environment env;
  for (char** e = environ; e && *e; ++e) {
    std::string_view entry(*e);
    size_t eq = entry.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view name = entry.substr(0, eq);
    if (name.starts_with("HASSIUM_") || name == "HOME")
      env.emplace(std::string(name), std::string(entry.substr(eq + 1)));
  }
  if (!env.count("HOME")) {
    struct passwd pw;
    struct passwd* result = nullptr;
    std::vector<char> buf(16384);
    if (getpwuid_r(getuid(), &pw, buf.data(), buf.size(), &result) == 0 && result && result->pw_dir)
      env["HOME"] = result->pw_dir;
  }
  return env;
}

std::string ConfigSource::str() const {
  switch (kind) {
  case Kind::Default:
    return "default";
  case Kind::File:
    return name + ":" + std::to_string(line);
  case Kind::Env:
    return "env " + name;
  }
  return "?";
}

std::vector<std::string> Config::search_path(const Environment& env) {
  std::vector<std::string> out;
  if (auto it = env.find("HASSIUM_CONFIG"); it != env.end() && !it->second.empty())
    out.push_back(it->second);
  if (std::string home = home_of(env); !home.empty())
    out.push_back(home + "/.config/hassium/config.ini");
  // The file (shared library or executable) this function was loaded from.
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&Config::search_path), &info) && info.dli_fname)
    for (std::string p : config_near_library(info.dli_fname))
      if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  for (std::string p : {HASSIUM_INSTALLED_CONFIG, HASSIUM_SOURCE_CONFIG})
    if (std::find(out.begin(), out.end(), p) == out.end()) out.push_back(p);
  return out;
}

std::vector<std::string> Config::config_near_library(const std::string& library) {
  std::error_code ec;
  std::filesystem::path lib = std::filesystem::weakly_canonical(library, ec);
  if (ec || lib.empty()) return {};
  std::filesystem::path dir = lib.parent_path();
  return {(dir / "config.ini").string(),
          (dir.parent_path() / "share" / "hassium" / "config.ini").lexically_normal().string()};
}

Config Config::defaults(const Environment& env) {
  Config c;
  for (const auto& k : kKeys) c.values_.push_back({std::string(k.default_value), {}});
  c.apply_env(env);
  c.finish(env);
  return c;
}

Config Config::from_text(std::string_view text, const std::string& filename,
                         const Environment& env) {
  Config c;
  for (const auto& k : kKeys) c.values_.push_back({std::string(k.default_value), {}});
  c.read_file_text(text, filename);
  c.apply_env(env);
  c.finish(env);
  return c;
}

Config Config::load(const Environment& env) {
  auto explicit_file = env.find("HASSIUM_CONFIG");
  if (explicit_file != env.end() && !explicit_file->second.empty())
    HS_USER_ASSERT(std::filesystem::exists(explicit_file->second))
        << "HASSIUM_CONFIG names " << explicit_file->second << ", which does not exist";
  for (const std::string& path : search_path(env)) {
    std::error_code ec;
    if (std::filesystem::is_regular_file(path, ec))
      return from_text(read_whole_file(path), path, env);
  }
  return defaults(env);
}

void Config::read_file_text(std::string_view text, const std::string& filename) {
  namespace pt = boost::property_tree;
  pt::ptree tree;
  std::istringstream in{std::string(text)};
  try {
    pt::read_ini(in, tree);
  } catch (const pt::ini_parser_error& e) {
    HS_USER_ERROR() << filename << ":" << e.line() << ": " << e.message();
  }
  // Check every section and key, with its line, before taking any value.
  std::map<std::pair<std::string, std::string>, int> lines;
  for (const IniLine& l : scan_ini(text)) {
    if (l.key.empty()) {
      auto sections = section_names();
      HS_USER_ASSERT(std::find(sections.begin(), sections.end(), l.section) != sections.end())
          << filename << ":" << l.line << ": unknown section [" << l.section
          << "]; valid: " << join(sections);
      continue;
    }
    HS_USER_ASSERT(!l.section.empty())
        << filename << ":" << l.line << ": key '" << l.key << "' comes before any [section]";
    HS_USER_ASSERT(find_key(l.section, l.key) >= 0)
        << filename << ":" << l.line << ": unknown key '" << l.key << "' in [" << l.section
        << "]; valid: " << join(keys_of(l.section));
    lines[{l.section, l.key}] = l.line;
  }
  for (const auto& [section, keys] : tree) {
    for (const auto& [key, node] : keys) {
      size_t i = key_index(section, key);
      std::string text_value = node.data();
      if (text_value.size() >= 2 && text_value.front() == '"' && text_value.back() == '"')
        text_value = text_value.substr(1, text_value.size() - 2);
      values_[i] = {text_value, {ConfigSource::Kind::File, filename, lines.at({section, key})}};
    }
  }
  file_ = filename;
}

void Config::apply_env(const Environment& env) {
  auto sections = section_names();
  for (const auto& [name, text] : env) {
    for (auto section : sections) {
      std::string prefix = "HASSIUM_" + upper(section) + "_";
      if (!name.starts_with(prefix)) continue;
      std::vector<std::string> valid;
      for (auto key : keys_of(section)) valid.push_back(prefix + upper(key));
      HS_USER_ASSERT(std::find(valid.begin(), valid.end(), name) != valid.end())
          << "unknown env " << name << ": no such key in [" << section
          << "]; valid: " << join(valid);
    }
  }
  for (const auto& alias : kEnvAliases) {
    auto it = env.find(std::string(alias.name));
    if (it != env.end())
      values_[key_index(alias.section, alias.key)] = {it->second,
                                                      {ConfigSource::Kind::Env, it->first, 0}};
  }
  for (size_t i = 0; i < std::size(kKeys); ++i) {
    auto it = env.find(kKeys[i].env_name());
    if (it != env.end()) values_[i] = {it->second, {ConfigSource::Kind::Env, it->first, 0}};
  }
}

void Config::finish(const Environment& env) {
  for (size_t i = 0; i < std::size(kKeys); ++i) {
    const ConfigKey& k = kKeys[i];
    ConfigValue& v = values_[i];
    switch (k.type) {
    case ConfigType::k_string:
      if (v.text == "~" || v.text.starts_with("~/")) {
        std::string home = home_of(env);
        HS_USER_ASSERT(!home.empty()) << describe(k, v) << ": cannot expand ~, HOME is not set";
        v.text = home + v.text.substr(1);
      }
      break;
    case ConfigType::k_int:
      HS_USER_ASSERT(parse_int(v.text)) << describe(k, v) << " is not an integer";
      break;
    case ConfigType::k_double:
      HS_USER_ASSERT(parse_double(v.text)) << describe(k, v) << " is not a number";
      break;
    case ConfigType::k_bool:
      HS_USER_ASSERT(parse_bool(v.text))
          << describe(k, v) << " is not a bool; valid: " << join(kBoolTrue) << ", "
          << join(kBoolFalse);
      break;
    case ConfigType::k_choice:
    case ConfigType::k_component:
      choice(k.section, k.key);
      break;
    case ConfigType::k_component_list:
      if (const RegistryBase* r = k.registry()) choice_list(k.section, k.key, *r);
      break;
    case ConfigType::k_list:
      break;
    }
  }
}

std::shared_ptr<const Config> Config::global() {
  std::lock_guard lock(g_mutex);
  if (!g_config) g_config = std::make_shared<const Config>(load(process_environment()));
  return g_config;
}

void Config::reload() {
  auto fresh = std::make_shared<const Config>(load(process_environment()));
  std::lock_guard lock(g_mutex);
  g_config = std::move(fresh);
}

void Config::set_global(std::shared_ptr<const Config> config) {
  std::lock_guard lock(g_mutex);
  g_config = std::move(config);
}

const ConfigValue& Config::value(std::string_view section, std::string_view key) const {
  return values_[key_index(section, key)];
}

namespace {
const ConfigValue& typed(const Config& c, std::string_view section, std::string_view key,
                         std::initializer_list<ConfigType> types) {
  size_t i = key_index(section, key);
  HS_INTERNAL_ASSERT(std::find(types.begin(), types.end(), kKeys[i].type) != types.end())
      << "config key [" << section << "] " << key << " has type " << config_type_name(kKeys[i].type)
      << ", read as " << config_type_name(*types.begin());
  return c.value_at(i);
}
} // namespace

const std::string& Config::get_string(std::string_view section, std::string_view key) const {
  return typed(*this, section, key,
               {ConfigType::k_string, ConfigType::k_choice, ConfigType::k_component})
      .text;
}

int64_t Config::get_int(std::string_view section, std::string_view key) const {
  return *parse_int(typed(*this, section, key, {ConfigType::k_int}).text);
}

bool Config::get_bool(std::string_view section, std::string_view key) const {
  return *parse_bool(typed(*this, section, key, {ConfigType::k_bool}).text);
}

double Config::get_double(std::string_view section, std::string_view key) const {
  return *parse_double(typed(*this, section, key, {ConfigType::k_double}).text);
}

std::vector<std::string> Config::get_list(std::string_view section, std::string_view key) const {
  return split(typed(*this, section, key, {ConfigType::k_list, ConfigType::k_component_list}).text,
               ',');
}

const std::string& Config::choice(std::string_view section, std::string_view key) const {
  const ConfigValue& v =
      typed(*this, section, key, {ConfigType::k_choice, ConfigType::k_component});
  const ConfigKey& k = kKeys[key_index(section, key)];
  if (k.type == ConfigType::k_component) {
    const RegistryBase* r = k.registry();
    return r ? choice(section, key, *r) : v.text;
  }
  std::vector<std::string> valid = k.valid_values();
  HS_USER_ASSERT(std::find(valid.begin(), valid.end(), v.text) != valid.end())
      << "unknown " << describe(k, v) << "; valid: " << join(valid);
  return v.text;
}

const std::string& Config::choice(std::string_view section, std::string_view key,
                                  const RegistryBase& registry) const {
  const ConfigValue& v = typed(*this, section, key, {ConfigType::k_component});
  HS_USER_ASSERT(registry.contains(v.text))
      << "unknown " << describe(kKeys[key_index(section, key)], v)
      << "; valid: " << registry.joined_names();
  return v.text;
}

std::vector<std::string> Config::choice_list(std::string_view section, std::string_view key,
                                             const RegistryBase& registry) const {
  const ConfigValue& v = typed(*this, section, key, {ConfigType::k_component_list});
  std::vector<std::string> items = split(v.text, ',');
  for (const auto& item : items)
    HS_USER_ASSERT(registry.contains(item))
        << "unknown '" << item << "' in " << describe(kKeys[key_index(section, key)], v)
        << "; valid: " << registry.joined_names();
  return items;
}

} // namespace hassium
