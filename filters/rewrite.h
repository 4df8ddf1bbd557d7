// Helpers the filters share: base access queries, renaming, fresh temporaries.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

#include "core/program.h"

namespace hassium::filters {

// The instruction reads some element of `base` (an input view of it; SYNC counts as a read).
bool reads(const Instruction& ins, const Base* base);
// The instruction writes `base` (its output view; not FREE/SYNC).
bool writes(const Instruction& ins, const Base* base);
// Any operand view, FREE or SYNC of `base`.
bool touches(const Instruction& ins, const Base* base);
// The view is every element of its base exactly once, in row-major order from element 0.
bool covers_base(const View& v);
// Replaces base `from` by `to` in every view operand (geometry kept; the bases must have the
// same dtype and number of elements).
void rename_base(Instruction& ins, const Base* from, const BasePtr& to);
// Makes new bases named `_<prefix><n>` that no base of the program has, appended to p.bases.
class TemporaryMaker {
public:
  TemporaryMaker(const Program& p, std::string_view prefix);
  BasePtr make(Program& p, DType dtype, int64_t nelem);

private:
  std::unordered_set<std::string> names_;
  std::string prefix_;
  int next_ = 0;
};
// FREE and SYNC of a base, as instructions.
Instruction free_of(const BasePtr& base);
// Drops the instructions whose flag is set, keeping source_lines aligned when present.
void erase_marked(Program& p, const std::vector<bool>& drop);

} // namespace hassium::filters
