// Contraction: one pass over the program collects, per base, where and how it is accessed.
#include "vem/node/contraction.h"

#include "core/error.h"
#include "core/pointer_index.h"
#include "core/thread_scratch.h"
#include "ir/fusion/contraction.h"

namespace hassium {

namespace {
struct BlockUse {
  int block = -1;        // the block of the first instruction naming the base
  bool one_block = true; // every instruction naming it is in `block`
  BaseUse rule;          // ir/fusion/contraction.h
};
} // namespace

std::vector<std::vector<const Base*>> contracted_bases(const Program& program,
                                                       const Partition& partition) {
  std::vector<int> block_of(program.instrs.size(), -1);
  for (size_t b = 0; b < partition.blocks.size(); ++b)
    for (size_t i : partition.blocks[b]) {
      HS_INTERNAL_ASSERT(i < block_of.size() && block_of[i] == -1)
          << "partition names instruction " << i << " twice or out of range";
      block_of[i] = int(b);
    }

  // Base -> its BaseUse (ids in first-use order, so the result is deterministic).
  thread_local PointerIndex tls_ids;
  PointerIndex& ids = pinned(tls_ids);
  ids.reset(program.bases.size() + program.instrs.size());
  std::vector<BlockUse> uses;
  std::vector<const Base*> order;
  uses.reserve(program.bases.size() + program.instrs.size());
  order.reserve(uses.capacity());
  auto use_of = [&](const Base* base, int block) -> BlockUse& {
    bool fresh;
    uint32_t id = ids.insert(base, fresh);
    if (fresh) {
      uses.emplace_back();
      order.push_back(base);
    }
    BlockUse& u = uses[id];
    if (u.block < 0) u.block = block;
    if (u.block != block) u.one_block = false;
    return u;
  };
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    const Instruction& ins = program.instrs[i];
    int block = block_of[i];
    HS_INTERNAL_ASSERT(block >= 0) << "partition leaves out instruction " << i;
    Family family = ins.info().family;
    if (ins.is_system()) {
      use_of(ins.out().base.get(), block).rule.system(ins.op);
      continue;
    }
    for (const View* in : ins.inputs())
      use_of(in->base.get(), block).rule.access(*in, false, family);
    use_of(ins.out().base.get(), block).rule.access(ins.out(), true, family);
  }

  std::vector<std::vector<const Base*>> result(partition.blocks.size());
  for (size_t id = 0; id < order.size(); ++id) {
    const Base* base = order[id];
    const BlockUse& u = uses[id];
    const bool contract = u.one_block && u.rule.contractible(*base);
    if (contract) result[size_t(u.block)].push_back(base);
  }
  return result;
}

} // namespace hassium
