// `hassium config`: the effective configuration, one key a line, with where each value came from.
#include <algorithm>
#include <iostream>
#include <string>
#include <vector>

#include "bridge/cli/command.h"
#include "core/config.h"
#include "core/filter_registry.h"
#include "ir/fusion/algorithms.h"
#include "ir/fusion/cost_model.h"

namespace {

// Keys whose valid names live in a registry, checked here so that `hassium config` reports
// every bad value. Add a line when a registry appears.
void check_registry_names(const hassium::Config& config) {
  config.choice_list("stack", "filters", hassium::filter_names());
  config.choice("fuser", "algorithm", hassium::algorithm_names());
  config.choice("fuser", "cost_model", hassium::cost_model_names());
}

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

// Every key: type, valid names, default, env var and what it does.
void print_doc() {
  for (const auto& k : hassium::config_keys()) {
    std::cout << k.section << "." << k.key << "  " << hassium::config_type_name(k.type);
    if (!k.valid.empty()) std::cout << " (" << k.valid << ")";
    if (k.type == hassium::ConfigType::k_choice && k.valid.empty())
      std::cout << " (names from a registry)";
    std::cout << ", default '" << k.default_value << "', env " << k.env_name() << "\n    " << k.doc
              << "\n";
  }
}

} // namespace

HS_CLI_COMMAND(config) {
  static bool doc = false;
  auto* sub = app.add_subcommand(
      "config", "Print the effective configuration: one line per key, `section.key = value "
                "(source)`, where the source is default, FILE:LINE or env VAR. Exits 1 with the "
                "error when the configuration is bad (config.ini documents every key).");
  sub->add_flag("--doc", doc, "list every key with its type, valid values, default and env var");
  sub->callback([&exit_code] {
    if (doc) {
      print_doc();
    } else {
      auto config = hassium::Config::global();
      check_registry_names(*config);
      print_effective(*config);
    }
    exit_code = 0;
  });
}
