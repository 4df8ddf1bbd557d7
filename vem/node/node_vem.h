// NodeVem: the single-machine VEM. Fuses a flushed program and runs its blocks on one engine.
#pragma once

#include <memory>
#include <string>

#include "core/backend.h"
#include "ir/fusion/fuser.h"
#include "ir/fusion/merge_cache.h"
#include "ir/fusion/program_key.h"
#include "ve/engine.h"
#include "vem/node/flush_plan.h"
#include "vem/node/flush_plan_cache.h"
#include "vem/node/flush_profiler.h"
#include "vem/node/memory_pool.h"
#include "vem/node/partition_dot.h"

namespace hassium {

// What execute() does with a program:
//  0. with a merge cache: computes the program's key (ir/fusion/program_key.h) and looks for a
//  flush
//     plan kept for it (vem/node/flush_plan_cache.h) that holds for this program; found, it
//     goes to step 4 with that plan (a replay);
//  1. asks the fuser for a partition (configured algorithm and cost model, through the merge
//     cache when there is one);
//  2. moves a write that would allocate a base of kDeferMinBytes or more long before its next
//     use into a block of its own just before that use (vem/node/defer_writes.h);
//  3. decides, per block, which bases are contracted (vem/node/contraction.h): those are
//     never allocated, the engine keeps them in registers;
//  4. asks the engine to prepare every block's kernel (Engine::prepare: compiled before any of
//     the flush's arrays is allocated, then the compiler's pages can go; before the first
//     compile of a flush the pool's cached buffers go back to the OS), then
//     runs the blocks in the partition's order. Before a block, every other base it accesses
//     that has no data gets a buffer from the memory pool (its first write). A base read before
//     anything wrote it and without data (a frontend's np.empty, say) gets a zero-filled
//     buffer; a base whose data the frontend set (external memory) is used as is. The block's
//     compute instructions go to the engine as one KernelBlock (FREE and SYNC stripped); then
//     its SYNCs mark their bases synced and its FREEs drop their buffers (back to the pool).
//     An engine with memory of its own (Engine::device_memory, a GPU's) gets the first writes
//     instead (the base lives on the device), the SYNCs (into a host buffer) and the FREEs.
//  5. lets go of a base FREEd in the program right after the last block (in partition order)
//     that accesses it, not when the block holding its FREE runs (often far later: a flush is
//     ~1000 instructions), so the pool hands that buffer to the next temporary. A base FREEd
//     and not accessed in the program is let go before the first block.
//  6. tells the engine the flush is over (Engine::end_flush; the CPU engine then drops the
//     compiler's resident pages if it compiled, ve/cpu/code_pages.h), after an error too.
// Steps 2, 3 and the per-block lists of 4-5 form the flush's plan (vem/node/flush_plan.h), with
// the engine's plan of its blocks (Engine::make_plan: the CPU engine's kernel plans and
// kernels). The VEM keeps it by key: a replay skips steps 1-3, the prepare pass (unless the
// views reshaped) and the engine's planning, and only binds the new bases and constants.
// SYNC'd data is visible in base->data when execute() returns (a frontend flushes right after a
// SYNC, so nothing later in the same program writes the base). Errors: see Backend::execute.
// After a UserError every FREE of the program is still honored (those of the failing block and
// of the blocks that did not run, at the throw).
class NodeVem : public Backend {
public:
  // `cache` may be null (no merge cache). With a `dot_dir`, every distinct partition is also
  // written there as a Graphviz picture (PartitionDotWriter, vem/node/partition_dot.h).
  NodeVem(std::unique_ptr<Engine> engine, FuserOptions fuser, std::unique_ptr<MergeCache> cache,
          MemoryPoolOptions memory = {}, std::string dot_dir = {});

  static constexpr int64_t kDeferMinBytes = int64_t(1) << 20; // see step 2 above
  static constexpr size_t kPlansKept = 4096; // flush plans, by program key (as the merge cache)
  // ... and at most this many instructions in them (about 50 bytes each: the bound of 256
  // plans of a Python flush's 2,000 instructions before, now met by size, not count).
  static constexpr size_t kPlanInstructionsKept = size_t(1) << 19;

  std::string_view name() const override { return "node"; }
  void execute(const Program& program) override;
  void add_counters(ProfileCounters& c) const override;
  void wait_background_work() override { engine_->wait_background_work(); }
  void finish_queued_work() override { engine_->finish_queued_work(); }
  // The pool's blocks (the pool outlives the VEM while the allocator is kept).
  HostAllocator host_allocator() const override;
  // Profiling on: also gather the singleton cost, bytes moved and the time of each distinct
  // kernel (vem/node/flush_profiler.h). Off by default; install_stack() sets [profile] enabled.
  void set_profiling(bool on);

  Engine& engine() { return *engine_; }
  const MemoryPool& pool() const { return *pool_; }
  const FuserOptions& fuser_options() const { return fuser_; }

private:
  void allocate(Base& base, bool zero_fill);
  // FREE, or the base's last use: its memory (host, and the device's) goes back.
  void release(Base& base);
  // Steps 4-6 for the program's plan (`bases` in the plan's id order); `prepare`: step 4's
  // prepare pass (a replay's kernels are ready unless its views reshaped).
  void run(const Program& program, FlushPlan& plan, const std::vector<Base*>& bases, bool prepare);

  std::unique_ptr<Engine> engine_;
  DeviceMemory* device_ = nullptr; // the engine's memory, if it has its own (a GPU's)
  FuserOptions fuser_;
  std::unique_ptr<MergeCache> cache_;
  // The flush plans by program key (with a merge cache only: without one every flush is planned
  // afresh), and the key of the flush at hand.
  std::unique_ptr<FlushPlanCache> plans_;
  ProgramKey key_;
  // Shared with every buffer handed out, so a base that outlives the VEM can still give its
  // buffer back.
  std::shared_ptr<MemoryPool> pool_;
  std::unique_ptr<PartitionDotWriter> dot_;
  std::unique_ptr<FlushProfiler> profiler_;
  int64_t flushes_ = 0;
  int64_t blocks_ = 0;
  int64_t partition_cost_ = 0; // sum of Partition::cost over the flushes (the fuser's model)
  int64_t plans_reused_ = 0;   // flushes that ran a kept plan (a replay)
  int64_t plans_reshaped_ = 0; // ... whose engine planned the blocks again (other extents)
  int64_t plan_checks_ = 0;    // ... whose partition was checked (views moved apart)
  int64_t small_flushes_ = 0;  // partitioned by linear ([fuser] search_min_bytes)
  double fuse_seconds_ = 0;    // fusion and planning (the plan of the flush)
};

} // namespace hassium
