// NodeVem: partition, allocation at first write, blocks to the engine, SYNC and FREE.
#include "vem/node/node_vem.h"

#include <chrono>
#include <cstring>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "vem/node/contraction.h"
#include "vem/node/defer_writes.h"
#include "vem/node/partition_dot.h"

namespace hassium {

NodeVem::NodeVem(std::unique_ptr<Engine> engine, FuserOptions fuser,
                 std::unique_ptr<MergeCache> cache, MemoryPoolOptions memory, std::string dot_dir)
    : engine_(std::move(engine)), fuser_(std::move(fuser)), cache_(std::move(cache)),
      pool_(std::make_shared<MemoryPool>(memory)) {
  HS_INTERNAL_ASSERT(engine_) << "NodeVem needs an engine";
  if (!dot_dir.empty()) dot_ = std::make_unique<PartitionDotWriter>(std::move(dot_dir));
  // Compiles are rare (new kernels); the pool's cached buffers would be resident next to the
  // compiler's memory, so they go back to the OS first.
  engine_->before_jit = [pool = pool_] { pool->trim(); };
}

void NodeVem::set_profiling(bool on) {
  profiler_ = on ? std::make_unique<FlushProfiler>(fuser_.cost_model) : nullptr;
}

void NodeVem::allocate(Base& base, bool zero_fill) {
  size_t bytes = size_t(base.nbytes());
  void* p = pool_->allocate(bytes);
  if (zero_fill) std::memset(p, 0, bytes);
  base.allocation = std::shared_ptr<void>(p, [pool = pool_](void* q) { pool->release(q); });
  base.data = p;
}

void NodeVem::free_base(Base& base) {
  base.data = nullptr;
  base.allocation.reset();
  base.external_owner.reset();
  base.synced = false;
}

void NodeVem::execute(const Program& program) {
  auto t0 = std::chrono::steady_clock::now();
  Partition partition = fuse(program, fuser_, cache_.get());
  fuse_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  defer_early_writes(program, partition, kDeferMinBytes);
  std::vector<std::vector<const Base*>> contracted = contracted_bases(program, partition);
  blocks_ += int64_t(partition.blocks.size());
  partition_cost_ += partition.cost;
  ++flushes_;
  if (dot_) dot_->write(program, partition, fuser_);
  if (profiler_) profiler_->on_partition(program);

  // Bases whose first access in program order is a read: they need zeros when they have no data.
  std::unordered_set<const Base*> seen, read_first;
  for (const Instruction& ins : program.instrs) {
    if (ins.is_system()) {
      if (ins.op == Opcode::SYNC && seen.insert(ins.out().base.get()).second)
        read_first.insert(ins.out().base.get());
      continue;
    }
    for (const View* in : ins.inputs())
      if (seen.insert(in->base.get()).second) read_first.insert(in->base.get());
    seen.insert(ins.out().base.get());
  }
  std::vector<std::vector<Base*>> release_after = early_releases(program, partition);

  size_t b = 0;
  try {
    // Every kernel of the flush first, while none of its arrays is allocated yet.
    KernelBlock ready;
    ready.program = &program;
    for (size_t k = 0; k < partition.blocks.size(); ++k) {
      ready.instrs.clear();
      for (size_t i : partition.blocks[k])
        if (!program.instrs[i].is_system()) ready.instrs.push_back(i);
      if (ready.instrs.empty()) continue;
      ready.contracted = contracted[k];
      engine_->prepare(ready);
    }
    engine_->end_prepare();
    for (Base* base : release_after.back()) free_base(*base); // FREEd, never accessed
    for (; b < partition.blocks.size(); ++b) {
      KernelBlock kb;
      kb.program = &program;
      kb.contracted = contracted[b];
      std::unordered_set<const Base*> skip(kb.contracted.begin(), kb.contracted.end());
      for (size_t i : partition.blocks[b]) {
        const Instruction& ins = program.instrs[i];
        if (ins.is_system()) continue;
        kb.instrs.push_back(i);
        for (const auto& opnd : ins.operands) {
          const View* v = std::get_if<View>(&opnd);
          if (!v || v->base->data || skip.count(v->base.get())) continue;
          allocate(*v->base, read_first.count(v->base.get()) > 0);
        }
        ins.out().base->synced = false;
      }
      if (!kb.instrs.empty() && profiler_) {
        double before = engine_->stats().execute_seconds;
        engine_->execute(kb);
        profiler_->on_block(program, kb.instrs, kb.contracted,
                            engine_->stats().execute_seconds - before);
      } else if (!kb.instrs.empty()) {
        engine_->execute(kb);
      }
      for (size_t i : partition.blocks[b]) {
        const Instruction& ins = program.instrs[i];
        Base& base = *ins.out().base;
        if (ins.op == Opcode::SYNC) {
          if (!base.data) allocate(base, true); // never written: zeros, as a fresh np.zeros
          base.synced = true;
        } else if (ins.op == Opcode::FREE) {
          free_base(base);
        }
      }
      for (Base* base : release_after[b]) free_base(*base);
    }
  } catch (...) {
    // The FREEs of the blocks that did not finish; those of finished blocks (and the early
    // releases up to them) already ran. free_base is idempotent, so a base released early
    // whose FREE comes later is simply let go again.
    for (; b < partition.blocks.size(); ++b)
      for (size_t i : partition.blocks[b])
        if (program.instrs[i].op == Opcode::FREE) free_base(*program.instrs[i].out().base);
    engine_->end_flush();
    throw;
  }
  engine_->end_flush();
}

std::vector<std::vector<Base*>> NodeVem::early_releases(const Program& program,
                                                        const Partition& partition) {
  // For each base FREEd in this program: the last block (in partition order) that accesses it.
  // A legal order runs that block no later than the FREE's, usually far earlier.
  constexpr size_t kNone = size_t(-1);
  std::unordered_map<Base*, size_t> last; // FREEd base -> last accessing block, or kNone
  for (const Instruction& ins : program.instrs)
    if (ins.op == Opcode::FREE) last.emplace(ins.out().base.get(), kNone);
  std::vector<std::vector<Base*>> release_after(partition.blocks.size() + 1);
  if (last.empty()) return release_after;
  for (size_t b = 0; b < partition.blocks.size(); ++b)
    for (size_t i : partition.blocks[b]) {
      const Instruction& ins = program.instrs[i];
      if (ins.op == Opcode::FREE) continue;
      for (const auto& opnd : ins.operands)
        if (const View* v = std::get_if<View>(&opnd)) {
          auto it = last.find(v->base.get());
          if (it != last.end() && (it->second == kNone || it->second < b)) it->second = b;
        }
    }
  // The last entry: bases FREEd without any access in this program, released before block 0.
  for (const auto& [base, b] : last)
    release_after[b == kNone ? partition.blocks.size() : b].push_back(base);
  return release_after;
}

void NodeVem::add_counters(ProfileCounters& c) const {
  c.blocks += blocks_;
  c.partition_cost += partition_cost_;
  c.fuse_seconds += fuse_seconds_;
  if (cache_) {
    auto s = cache_->stats();
    c.merge_cache_hits += int64_t(s.hits);
    c.merge_cache_misses += int64_t(s.misses);
  }
  EngineStats e = engine_->stats();
  c.kernels_compiled += e.kernels_compiled;
  c.kernel_memory_hits += e.memory_cache_hits;
  c.kernel_disk_hits += e.disk_cache_hits;
  c.compile_seconds += e.compile_seconds;
  c.execute_seconds += e.execute_seconds;
  MemoryPoolStats m = pool_->stats();
  c.pool_reuses += m.reuses;
  c.pool_os_allocations += m.os_allocations;
  c.peak_bytes = std::max(c.peak_bytes, int64_t(m.peak_bytes_in_use));
  if (profiler_) profiler_->add_counters(c);
}

} // namespace hassium
