// `hassium config`: the effective configuration, one key a line, with where each value came from.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "bridge/cli/command.h"
#include "core/config.h"
#include "core/registry.h"

namespace {

// `section.key = value    (source)`, the sources aligned in one column.
void print_effective(const hassium::Config& config) {
  auto keys = hassium::config_keys();
  std::vector<std::string> lefts;
  size_t width = 0;
  for (size_t i = 0; i < keys.size(); ++i) {
    lefts.push_back(std::string(keys[i].section) + "." + std::string(keys[i].key) + " = " +
                    config.value_at(i).text);
    width = std::max(width, lefts.back().size());
  }
  std::cout << "# config file: " << (config.file().empty() ? "none, defaults" : config.file())
            << "\n";
  for (size_t i = 0; i < keys.size(); ++i)
    std::cout << lefts[i] << std::string(width - lefts[i].size() + 4, ' ') << "("
              << config.value_at(i).source.str() << ")\n";
}

// Every key: type, valid values, default, env var and what it does; for a component key, the
// components this build has (its published registry), each with its doc.
void print_doc() {
  for (const auto& k : hassium::config_keys()) {
    const hassium::RegistryBase* registry = k.registry();
    std::cout << k.section << "." << k.key << "  " << hassium::config_type_name(k.type);
    if (k.type == hassium::ConfigType::k_choice)
      std::cout << " (" << k.valid << ")";
    else if (registry)
      std::cout << " (" << registry->joined_names() << ")";
    else if (!k.valid.empty())
      std::cout << " (registry " << k.valid << ": not in this build)";
    std::cout << ", default '" << k.default_value << "', env " << k.env_name() << "\n    " << k.doc
              << "\n";
    if (registry)
      for (const std::string& name : registry->names())
        std::cout << "      " << name << ": " << registry->doc(name) << "\n";
  }
}

} // namespace

HS_CLI_COMMAND(config) {
  static bool doc = false;
  auto* sub = app.add_subcommand(
      "config", "Print the effective configuration: one line per key, `section.key = value "
                "(source)`, where the source is default, FILE:LINE or env VAR. Exits 1 with the "
                "error when the configuration is bad (config.ini documents every key).");
  sub->add_flag("--doc", doc,
                "list every key with its type, valid values (the components built in), default "
                "and env var");
  sub->callback([&exit_code] {
    if (doc)
      print_doc();
    else
      print_effective(*hassium::Config::global()); // checked as it loads, components included
    exit_code = 0;
  });
}
