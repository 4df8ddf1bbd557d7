// Subcommands of the `hassium` tool register themselves here, one file each (cmd_*.cpp).
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

namespace hassium::cli {

// Adds a subcommand to the app. The callback it installs returns through `exit_code`.
using CommandSetup = std::function<void(CLI::App& app, int& exit_code)>;

struct CommandRegistry {
  static std::vector<std::pair<std::string, CommandSetup>>& commands();
};

// At namespace scope in a cmd_*.cpp: HS_CLI_COMMAND(check) { ...body using app, exit_code... }
struct CommandRegistrar {
  CommandRegistrar(std::string name, CommandSetup setup) {
    CommandRegistry::commands().emplace_back(std::move(name), std::move(setup));
  }
};

} // namespace hassium::cli

#define HS_CLI_COMMAND(NAME)                                                                       \
  static void hs_cli_setup_##NAME(CLI::App& app, int& exit_code);                                  \
  static ::hassium::cli::CommandRegistrar hs_cli_registrar_##NAME(#NAME, hs_cli_setup_##NAME);     \
  static void hs_cli_setup_##NAME(CLI::App& app, int& exit_code)
