// Program: a list of instructions and the bases they use (the unit a flush hands down).
#pragma once

#include <string>
#include <vector>

#include "core/instruction.h"

namespace hassium {

struct Program {
  // The bases in declaration order (the text format declares each with `.base`).
  std::vector<BasePtr> bases;
  std::vector<Instruction> instrs;

  // The declared base of that name, or null.
  BasePtr find_base(std::string_view name) const;
  // Adds every base that instructions use but `bases` does not list, in order of first use.
  void collect_bases();
  size_t size() const { return instrs.size(); }
};

} // namespace hassium
