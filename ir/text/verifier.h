// Verifier of bytecode: the rules an instruction and a program must follow before they run.
#pragma once

#include <cstddef>

#include "core/program.h"

namespace hassium {

// Checks one instruction on its own: operand count, which operands are views and which
// constants, the type signature, views well-formed and inside their bases, shapes, the
// reduction axis, and the data-parallel rule (an input that overlaps the output is identical
// to it; reductions, gathers, scatters and MATMUL need inputs disjoint from the output).
// Throws UserError "instruction N `TEXT`: message" (N = index + 1, TEXT its printed form).
void verify_instruction(const Instruction& ins, size_t index);

// Checks every instruction, that every base is declared in prog.bases with a unique name,
// and that no base is used after its FREE. When the program came from a file
// (prog.source_name / source_lines), messages start with "FILE:LINE: ".
void verify_program(const Program& prog);

} // namespace hassium
