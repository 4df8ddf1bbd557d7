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
  // Where the program came from, for messages: the file name and the 1-based line of each
  // instruction. Empty when it was not parsed from text; ignored when the sizes disagree.
  std::string source_name;
  std::vector<int> source_lines;

  // The declared base of that name, or null.
  BasePtr find_base(std::string_view name) const;
  // Adds every base that instructions use but `bases` does not list, in order of first use.
  void collect_bases();
  size_t size() const { return instrs.size(); }
};

} // namespace hassium
