// Contraction: one pass over the program collects, per base, where and how it is accessed.
#include "vem/node/contraction.h"

#include <algorithm>
#include <cstdlib>

#include "core/error.h"
#include "core/pointer_index.h"

namespace hassium {

bool visits_each_element_once(const View& v) {
  std::vector<std::pair<int64_t, int64_t>> dims; // (|stride|, extent), extents > 1 only
  for (size_t k = 0; k < v.shape.size(); ++k) {
    if (v.shape[k] == 0) return true; // visits nothing
    if (v.shape[k] > 1) dims.emplace_back(std::abs(v.stride[k]), v.shape[k]);
  }
  std::sort(dims.begin(), dims.end());
  int64_t span = 0; // largest distance between two elements of the inner dimensions
  for (auto [s, e] : dims) {
    if (s <= span) return false;
    span += s * (e - 1);
  }
  return true;
}

namespace {
struct BaseUse {
  int block = -1;        // the block of the first instruction naming the base
  bool one_block = true; // every instruction naming it is in `block`
  bool written_first = false;
  bool seen = false;
  bool freed = false;
  bool synced = false;
  bool per_element = true;    // every access is one element per loop iteration (see the header)
  const View* view = nullptr; // the first view; every other must be identical
  bool one_view = true;
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
  PointerIndex& ids = tls_ids;
  ids.reset(program.bases.size() + program.instrs.size());
  std::vector<BaseUse> uses;
  std::vector<const Base*> order;
  uses.reserve(program.bases.size() + program.instrs.size());
  order.reserve(uses.capacity());
  auto use_of = [&](const Base* base) -> BaseUse& {
    bool fresh;
    uint32_t id = ids.insert(base, fresh);
    if (fresh) {
      uses.emplace_back();
      order.push_back(base);
    }
    return uses[id];
  };
  auto touch = [&](const View& v, int block, bool write, Family family) {
    BaseUse& u = use_of(v.base.get());
    if (!u.seen) {
      u.seen = true;
      u.block = block;
      u.written_first = write;
    }
    if (u.block != block) u.one_block = false;
    if (family == Family::SYSTEM) return;
    // A reduction reads its input one element per iteration too: the engine accumulates the
    // register. Its output, scans, gathers and scatters need the memory.
    bool reduced_input = family == Family::REDUCTION && !write;
    if (family != Family::ELEMENTWISE && family != Family::GENERATOR && !reduced_input)
      u.per_element = false;
    if (!u.view) {
      u.view = &v;
    } else if (!u.view->identical(v)) {
      u.one_view = false;
    }
  };
  for (size_t i = 0; i < program.instrs.size(); ++i) {
    const Instruction& ins = program.instrs[i];
    int block = block_of[i];
    HS_INTERNAL_ASSERT(block >= 0) << "partition leaves out instruction " << i;
    Family family = ins.info().family;
    if (ins.is_system()) {
      touch(ins.out(), block, false, family);
      BaseUse& u = use_of(ins.out().base.get());
      (ins.op == Opcode::FREE ? u.freed : u.synced) = true;
      continue;
    }
    for (const View* in : ins.inputs()) touch(*in, block, false, family);
    touch(ins.out(), block, true, family);
  }

  std::vector<std::vector<const Base*>> result(partition.blocks.size());
  for (size_t id = 0; id < order.size(); ++id) {
    const Base* base = order[id];
    const BaseUse& u = uses[id];
    bool contract = base->data == nullptr && !base->allocation && u.one_block && u.freed &&
                    !u.synced && u.written_first && u.per_element && u.one_view &&
                    u.view != nullptr && visits_each_element_once(*u.view);
    if (contract) result[size_t(u.block)].push_back(base);
  }
  return result;
}

} // namespace hassium
