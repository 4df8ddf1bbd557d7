// `hassium check FILE.hsb...`: parse and verify; silent on success, the first error otherwise.
#include <iostream>

#include "bridge/cli/command.h"
#include "core/error.h"
#include "ir/text/parser.h"
#include "ir/text/verifier.h"

HS_CLI_COMMAND(check) {
  static std::vector<std::string> files;
  auto* sub = app.add_subcommand("check", "Parse and verify .hsb bytecode files. Prints nothing "
                                          "and exits 0 when all are valid; otherwise prints "
                                          "each file's first error (FILE:LINE[:COL]: message) "
                                          "on stderr and exits 1.");
  sub->add_option("files", files, "the .hsb files")->required();
  sub->callback([&exit_code] {
    for (const auto& f : files) {
      try {
        hassium::verify_program(hassium::parse_file(f));
      } catch (const hassium::UserError& e) {
        std::cerr << e.what() << "\n";
        exit_code = 1;
      }
    }
  });
}
