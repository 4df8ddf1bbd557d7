// NodeVem: partition, allocation at first write, blocks to the engine, SYNC and FREE.
#include "vem/node/node_vem.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <string>

#include "core/error.h"
#include "core/interrupt.h"
#include "core/memory_error.h"
#include "vem/node/defer_writes.h"
#include "vem/node/flush_plan.h"
#include "vem/node/partition_dot.h"

namespace hassium {

NodeVem::NodeVem(std::unique_ptr<Engine> engine, FuserOptions fuser,
                 std::unique_ptr<MergeCache> cache, MemoryPoolOptions memory, std::string dot_dir)
    : engine_(std::move(engine)), fuser_(std::move(fuser)), cache_(std::move(cache)),
      pool_(std::make_shared<MemoryPool>(memory)) {
  if (cache_) plans_ = std::make_unique<FlushPlanCache>(kPlansKept, kPlanInstructionsKept);
  device_ = engine_->device_memory();
  HS_INTERNAL_ASSERT(engine_) << "NodeVem needs an engine";
  if (!dot_dir.empty()) dot_ = std::make_unique<PartitionDotWriter>(std::move(dot_dir));
  // Compiles are rare (new kernels); the pool's cached buffers would be resident next to the
  // compiler's memory, so they go back to the OS first.
  engine_->before_jit = [pool = pool_] { pool->trim(); };
}

void NodeVem::set_profiling(bool on) {
  profiler_ = on ? std::make_unique<FlushProfiler>(fuser_.cost_model) : nullptr;
}

namespace {
// A block of the pool for the base's bytes, owned through Base::allocation.
void allocate_from(const std::shared_ptr<MemoryPool>& pool, Base& base) {
  MemoryPool::Block b;
  try {
    b = pool->allocate_block(size_t(base.nbytes()));
  } catch (const OutOfMemory&) {
    throw OutOfMemory(unable_to_allocate(base));
  }
  base.allocation =
      std::shared_ptr<void>(b.p, [pool, cls = b.cls](void* q) { pool->release(q, cls); });
  base.data = b.p;
}
} // namespace

void NodeVem::allocate(Base& base, bool zero_fill) {
  allocate_from(pool_, base);
  if (zero_fill) std::memset(base.data, 0, size_t(base.nbytes()));
}

Backend::HostAllocator NodeVem::host_allocator() const {
  return [pool = pool_](Base& base) { allocate_from(pool, base); };
}

void NodeVem::release(Base& base) {
  if (device_) device_->release(base);
  base.release_memory();
}

void NodeVem::execute(const Program& program) {
  auto t0 = std::chrono::steady_clock::now();
  // A plan kept for the program's key that holds for it: an exact repeat (a loop's flushes), or
  // the same program with its views moved (its kernels are ready; the engine binds the views'
  // offsets as it launches them) or reshaped (the engine prepares its blocks again).
  FlushPlan* plan = nullptr;
  bool prepare = true;
  const std::vector<Base*>* bases = &key_.bases;
  if (plans_) {
    key_.compute(program, fuser_);
    FlushPlanCache::Found found = plans_->find(program, key_);
    if ((plan = found.plan)) {
      ++plans_reused_;
      plan_checks_ += found.checked;
      small_flushes_ += key_.small;
      prepare = found.fit == FlushPlanCache::Fit::RESHAPED;
      plans_reshaped_ += prepare;
      if (prepare) engine_->reshape(*plan->engine);
    }
  }
  std::unique_ptr<FlushPlan> fresh;
  if (!plan) {
    FuseInfo info;
    Partition partition = fuse(program, fuser_, cache_.get(), &info, plans_ ? &key_ : nullptr);
    small_flushes_ += info.small;
    defer_early_writes(program, partition, kDeferMinBytes);
    if (!plans_) {
      bases_in_key_order(program, key_.bases);
    }
    fresh = make_flush_plan(program, std::move(partition), *bases);
    fresh->engine = engine_->make_plan(fresh->blocks.size());
    plan = fresh.get();
  }
  fuse_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  blocks_ += int64_t(plan->blocks.size());
  partition_cost_ += plan->partition.cost;
  ++flushes_;
  if (dot_) dot_->write(program, plan->partition, fuser_);
  if (profiler_) profiler_->on_partition(program);
  run(program, *plan, *bases, prepare);
  // Kept for the next program of the key. Only a plan whose flush ran through: its engine plan
  // is whole.
  if (fresh && plans_) plans_->insert(key_, std::move(fresh));
}

void NodeVem::run(const Program& program, FlushPlan& plan, const std::vector<Base*>& bases,
                  bool prepare) {
  const auto& blocks = plan.partition.blocks;
  KernelBlock kb;
  kb.program = &program;
  auto contracted = [&](const FlushPlan::Block& block) {
    kb.contracted.clear();
    for (uint32_t id : block.contracted) kb.contracted.push_back(bases[id]);
  };
  size_t b = 0;
  try {
    EnginePlan& engine_plan = *plan.engine;
    if (prepare) { // every kernel of the flush first, while none of its arrays is allocated yet
      for (size_t p = 0; p < blocks.size(); ++p) {
        const FlushPlan::Block& block = plan.blocks[p];
        if (block.compute.empty()) continue;
        check_interrupt(); // compiles may take long
        kb.instrs = block.compute;
        contracted(block);
        engine_->prepare(engine_plan, p, kb);
      }
      engine_->end_prepare(engine_plan);
    }
    engine_->bind(engine_plan, program);
    for (uint32_t id : plan.release_first) release(*bases[id]); // FREEd, never accessed
    for (; b < blocks.size(); ++b) {
      check_interrupt();
      FlushPlan::Block& block = plan.blocks[b];
      for (auto [id, zero_fill] : block.access) {
        Base& base = *bases[id];
        if (base.data) continue;
        if (!device_)
          allocate(base, zero_fill);
        else if (!device_->resident(base))
          device_->allocate(base, zero_fill);
      }
      for (uint32_t id : block.written) bases[id]->synced = false;
      if (!block.compute.empty()) {
        kb.instrs = block.compute;
        contracted(block);
        double before = profiler_ ? engine_->stats().execute_seconds : 0;
        engine_->launch(engine_plan, b, kb);
        if (profiler_)
          profiler_->on_block(program, kb.instrs, kb.contracted,
                              engine_->stats().execute_seconds - before);
      }
      for (const FlushPlan::Block::System& s : block.sync) {
        Base& base = *bases[s.base];
        if (s.op == Opcode::SYNC) {
          if (device_ && device_->resident(base)) {
            if (!base.data) allocate(base, false);
            device_->sync(base, program.instrs[s.instr].view(0));
          } else if (!base.data) {
            allocate(base, true); // never written: zeros, as a fresh np.zeros
          }
          base.synced = true;
        } else if (s.op == Opcode::FREE) {
          release(base);
        }
      }
      for (uint32_t id : block.release_after) release(*bases[id]);
    }
    check_interrupt(); // the launcher may have skipped the last block's chunks
  } catch (...) {
    // The FREEs of the blocks that did not finish; those of finished blocks (and the early
    // releases up to them) already ran. release_memory is idempotent, so a base released early
    // whose FREE comes later is simply let go again.
    for (; b < blocks.size(); ++b)
      for (const FlushPlan::Block::System& s : plan.blocks[b].sync)
        if (s.op == Opcode::FREE) release(*bases[s.base]);
    engine_->end_flush();
    throw;
  }
  engine_->end_flush();
}

void NodeVem::add_counters(ProfileCounters& c) const {
  c.blocks += blocks_;
  c.partition_cost += partition_cost_;
  c.fuse_seconds += fuse_seconds_;
  c.plans_reused += plans_reused_;
  c.plans_reshaped += plans_reshaped_;
  c.plan_checks += plan_checks_;
  c.small_flushes += small_flushes_;
  if (cache_) {
    auto s = cache_->stats();
    // A replay found the program's key (in the VEM's plans, before the merge cache): a hit.
    c.merge_cache_hits += int64_t(s.hits) + plans_reused_;
    c.merge_cache_misses += int64_t(s.misses);
    c.cache_files_rejected += int64_t(s.disk_rejected);
    c.cache_write_errors += int64_t(s.disk_errors);
  }
  EngineStats e = engine_->stats();
  c.kernels_compiled += e.kernels_compiled;
  c.kernel_memory_hits += e.memory_cache_hits;
  c.kernel_disk_hits += e.disk_cache_hits;
  c.cache_files_rejected += e.disk_cache_rejected;
  c.cache_write_errors += e.disk_cache_write_errors;
  c.compile_seconds += e.compile_seconds;
  c.kernels_optimized += e.kernels_optimized;
  c.blocks_interpreted += e.blocks_interpreted;
  c.matvecs_paired += e.matvecs_paired;
  c.fast_compiles += e.fast_compiles;
  c.optimized_compiles += e.optimized_compiles;
  c.background_compile_seconds += e.background_compile_seconds;
  c.execute_seconds += e.execute_seconds;
  c.device_copies_in += e.to_device_copies;
  c.device_bytes_in += e.to_device_bytes;
  c.device_copies_out += e.to_host_copies;
  c.device_bytes_out += e.to_host_bytes;
  c.device_launches += e.launches;
  c.device_syncs += e.device_syncs;
  c.device_fallback_blocks += e.fallback_blocks;
  c.device_peak_bytes = std::max(c.device_peak_bytes, e.device_peak_bytes);
  MemoryPoolStats m = pool_->stats();
  c.pool_reuses += m.reuses;
  c.pool_os_allocations += m.os_allocations;
  c.pool_cuts += m.cuts;
  c.peak_bytes = std::max(c.peak_bytes, int64_t(m.peak_bytes_in_use));
  if (profiler_) profiler_->add_counters(c);
}

} // namespace hassium
