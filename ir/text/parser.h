// Parser of the .hsb text format (DESIGN.md section 3): text -> Program.
#pragma once

#include <string>
#include <string_view>

#include "core/program.h"

namespace hassium {

// Parses a whole program. Throws UserError "FILE:LINE:COL: message" (1-based line and column
// of the offending token) on the first error. Checks syntax, names and constants only;
// verify_program (ir/text/verifier.h) checks the instructions. The program records `filename`
// and the line of every instruction for the verifier's messages.
Program parse_program(std::string_view text, std::string_view filename = "<input>");

// Reads and parses a file; messages name it by `path` as given.
Program parse_file(const std::string& path);

} // namespace hassium
