// `hassium print FILE.hsb`: the program in canonical .hsb form on stdout.
#include <iostream>

#include "bridge/cli/command.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"

HS_CLI_COMMAND(print) {
  static std::string file;
  static bool no_verify = false;
  auto* sub = app.add_subcommand("print", "Print a .hsb file in canonical form: .base lines "
                                          "first, bare names for whole bases, constants "
                                          "without redundant :dtype suffixes.");
  sub->add_option("file", file, "the .hsb file")->required();
  sub->add_flag("--no-verify", no_verify, "print even if the program does not verify");
  sub->callback([] {
    auto prog = hassium::parse_file(file);
    if (!no_verify) hassium::verify_program(prog);
    std::cout << hassium::print_program(prog);
  });
  (void)exit_code;
}
