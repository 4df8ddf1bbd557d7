// Printer of the .hsb text format: the canonical text of instructions and programs.
#pragma once

#include <string>

#include "core/program.h"

namespace hassium {

// One instruction on one line, canonical: `OPCODE op1, op2, ...`; a view that is its whole
// base prints as the bare base name, others as NAME{offset;shape;stride}; a constant prints
// without a `:dtype` suffix exactly when the parser would give it the same dtype anyway.
std::string print_instruction(const Instruction& ins);

// A view alone: `A` or `A{0;3,4;4,1}`.
std::string print_view(const View& v);

// `.base NAME DTYPE NELEM` lines in declaration order (bases used but not declared follow,
// in order of first use), then one line per instruction. parse_program gives it back.
std::string print_program(const Program& prog);

} // namespace hassium
