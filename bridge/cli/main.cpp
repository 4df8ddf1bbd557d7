// The `hassium` tool: check, print, config, fuse, run ... (each subcommand in its own file).
#include <algorithm>
#include <iostream>

#include "bridge/cli/command.h"
#include "core/error.h"
#include "vem/stack.h"

namespace hassium::cli {
std::vector<std::pair<std::string, CommandSetup>>& CommandRegistry::commands() {
  static std::vector<std::pair<std::string, CommandSetup>> list;
  return list;
}
} // namespace hassium::cli

int main(int argc, char** argv) {
  CLI::App app{"hassium: a runtime array-bytecode virtual machine with JIT fusion"};
  app.require_subcommand(1);
  int exit_code = 0;
  // Before any command reads the configuration: it may only name components built in.
  hassium::publish_builtin_registries();
  auto& commands = hassium::cli::CommandRegistry::commands();
  std::sort(commands.begin(), commands.end(),
            [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [name, setup] : commands) setup(app, exit_code);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  } catch (const hassium::UserError& e) {
    std::cerr << "hassium: error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "hassium: " << e.what() << "\n";
    return 2;
  }
  return exit_code;
}
