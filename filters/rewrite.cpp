// Helpers the filters share: base access queries, renaming, fresh temporaries.
#include "filters/rewrite.h"

namespace hassium::filters {

bool reads(const Instruction& ins, const Base* base) {
  if (ins.op == Opcode::SYNC) return ins.out().base.get() == base;
  if (ins.is_system()) return false;
  for (const View* v : ins.inputs())
    if (v->base.get() == base) return true;
  return false;
}

bool writes(const Instruction& ins, const Base* base) {
  return !ins.is_system() && ins.out().base.get() == base;
}

bool touches(const Instruction& ins, const Base* base) {
  for (size_t i = 0; i < ins.operands.size(); ++i)
    if (ins.is_view(i) && ins.view(i).base.get() == base) return true;
  return false;
}

bool covers_base(const View& v) {
  return v.offset == 0 && v.size() == v.base->nelem && v.is_contiguous();
}

void rename_base(Instruction& ins, const Base* from, const BasePtr& to) {
  for (size_t i = 0; i < ins.operands.size(); ++i)
    if (ins.is_view(i) && ins.view(i).base.get() == from) ins.view(i).base = to;
}

TemporaryMaker::TemporaryMaker(const Program& p, std::string_view prefix) : prefix_(prefix) {
  // Only names starting with `_<prefix>` can collide with a temporary's: the others are not
  // stored (a flush runs every filter, and most programs have no such name at all).
  auto note = [&](const std::string& name) {
    if (name.size() > prefix_.size() && name[0] == '_' &&
        name.compare(1, prefix_.size(), prefix_) == 0)
      names_.insert(name);
  };
  for (const auto& b : p.bases) note(b->name);
  for (const auto& ins : p.instrs)
    for (size_t i = 0; i < ins.operands.size(); ++i)
      if (ins.is_view(i)) note(ins.view(i).base->name);
}

BasePtr TemporaryMaker::make(Program& p, DType dtype, int64_t nelem) {
  for (;; ++next_) {
    std::string name = "_" + prefix_ + std::to_string(next_);
    if (!names_.insert(name).second) continue;
    BasePtr b = make_base(name, dtype, nelem);
    p.bases.push_back(b);
    return b;
  }
}

Instruction free_of(const BasePtr& base) {
  return Instruction(Opcode::FREE, {View::whole(base)});
}

void erase_marked(Program& p, const std::vector<bool>& drop) {
  bool lines = p.source_lines.size() == p.instrs.size();
  size_t k = 0;
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    if (drop[i]) continue;
    if (k != i) {
      p.instrs[k] = std::move(p.instrs[i]);
      if (lines) p.source_lines[k] = p.source_lines[i];
    }
    ++k;
  }
  p.instrs.resize(k);
  if (lines) p.source_lines.resize(k);
}

} // namespace hassium::filters
