// FlushPlan: contraction, first reads, allocations, SYNC/FREE handling and early releases per
// block, in base ids.
#include "vem/node/flush_plan.h"

#include "core/error.h"
#include "core/pointer_index.h"
#include "core/thread_scratch.h"
#include "vem/node/contraction.h"

namespace hassium {

void bases_in_key_order(const Program& program, std::vector<Base*>& bases) {
  thread_local PointerIndex tls_ids;
  PointerIndex& ids = pinned(tls_ids);
  ids.reset(program.bases.size());
  bases.clear();
  bool fresh;
  for (const Instruction& ins : program.instrs)
    for (const Operand& opnd : ins.operands)
      if (const View* v = std::get_if<View>(&opnd)) {
        ids.insert(v->base.get(), fresh);
        if (fresh) bases.push_back(v->base.get());
      }
}

std::unique_ptr<FlushPlan> make_flush_plan(const Program& program, Partition partition,
                                           const std::vector<Base*>& bases) {
  auto plan = std::make_unique<FlushPlan>();
  plan->partition = std::move(partition);
  const auto& blocks = plan->partition.blocks;
  thread_local PointerIndex tls_ids;
  PointerIndex& ids = pinned(tls_ids);
  ids.reset(bases.size());
  for (Base* b : bases) ids.insert(b);
  auto id_of = [&](const Base* b) {
    uint32_t id = ids.find(b);
    HS_INTERNAL_ASSERT(id != PointerIndex::kAbsent) << "base " << b->name << " not in the order";
    return id;
  };

  // Bases whose first access in program order is a read: they need zeros when they have no data.
  std::vector<uint8_t> seen(bases.size(), 0), read_first(bases.size(), 0);
  auto first = [&](uint32_t id, bool read) {
    if (seen[id]) return;
    seen[id] = 1;
    read_first[id] = read;
  };
  for (const Instruction& ins : program.instrs) {
    if (ins.is_system()) {
      if (ins.op == Opcode::SYNC) first(id_of(ins.out().base.get()), true);
      continue;
    }
    for (const View* in : ins.inputs()) first(id_of(in->base.get()), true);
    first(id_of(ins.out().base.get()), false);
  }

  // Per base FREEd in the program: the last block (in partition order) that accesses it. A
  // legal order runs that block no later than the FREE's, usually far earlier.
  constexpr size_t kNotFreed = size_t(-2), kNoAccess = size_t(-1);
  std::vector<size_t> last(bases.size(), kNotFreed);
  for (const Instruction& ins : program.instrs)
    if (ins.op == Opcode::FREE) last[id_of(ins.out().base.get())] = kNoAccess;
  auto accessed_in = [&](uint32_t id, size_t b) { // any access but the FREE
    if (last[id] != kNotFreed && (last[id] == kNoAccess || last[id] < b)) last[id] = b;
  };

  std::vector<std::vector<const Base*>> contracted = contracted_bases(program, plan->partition);
  std::vector<uint32_t> stamp(bases.size(), uint32_t(-1)); // block that listed the base
  plan->blocks.resize(blocks.size());
  for (size_t b = 0; b < blocks.size(); ++b) {
    FlushPlan::Block& out = plan->blocks[b];
    for (const Base* c : contracted[b]) {
      uint32_t id = id_of(c);
      out.contracted.push_back(id);
      stamp[id] = uint32_t(b); // never allocated: left out of `access`
    }
    for (size_t i : blocks[b]) {
      const Instruction& ins = program.instrs[i];
      if (ins.is_system()) {
        uint32_t id = id_of(ins.out().base.get());
        out.sync.push_back({id, ins.op, uint32_t(i)});
        if (ins.op == Opcode::SYNC) accessed_in(id, b);
        continue;
      }
      out.compute.push_back(i);
      for (const Operand& opnd : ins.operands)
        if (const View* v = std::get_if<View>(&opnd)) {
          uint32_t id = id_of(v->base.get());
          accessed_in(id, b);
          if (stamp[id] == uint32_t(b)) continue;
          stamp[id] = uint32_t(b);
          out.access.emplace_back(id, read_first[id] != 0);
        }
      out.written.push_back(id_of(ins.out().base.get()));
    }
  }
  for (uint32_t id = 0; id < bases.size(); ++id) {
    if (last[id] == kNotFreed) continue;
    if (last[id] == kNoAccess)
      plan->release_first.push_back(id);
    else
      plan->blocks[last[id]].release_after.push_back(id);
  }
  return plan;
}

} // namespace hassium
