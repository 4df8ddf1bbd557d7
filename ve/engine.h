// Engine: the interface every vector engine (cpu, cuda) implements; the VEM calls it per block.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/profile.h"
#include "core/program.h"

namespace hassium {

// What an engine derived from a block's structure (its plan, its kernel). The VEM keeps it
// with its plan of the flush and hands it back when a later flush is the same program up to
// base names and constant values (a merge-cache exact repeat): the engine then only binds the
// new data pointers and constants.
struct EngineBlockState {
  virtual ~EngineBlockState() = default;
};

// One fused block as the VEM hands it to an engine.
struct KernelBlock {
  const Program* program = nullptr;
  // Indices into program->instrs, ascending (program order). System instructions (FREE, SYNC)
  // are handled by the VEM and never appear here.
  std::vector<size_t> instrs;
  // Bases created and FREEd inside this block (the paper's contraction): the engine keeps
  // their values in registers and never reads or writes base->data for them.
  std::vector<const Base*> contracted;
  // Where the engine may keep (when null) or find (when set) the block's state; null: the VEM
  // keeps none. Set only by the engine that filled it, for a block of the same structure.
  std::unique_ptr<EngineBlockState>* state = nullptr;
};

// Counters an engine keeps (for HASSIUM_PROFILE and hassium.profile()).
struct EngineStats {
  int64_t blocks_executed = 0;
  int64_t kernels_compiled = 0;
  int64_t memory_cache_hits = 0;
  int64_t disk_cache_hits = 0;
  int64_t disk_cache_rejected = 0;     // cache files found but unusable (damaged, foreign)
  int64_t disk_cache_write_errors = 0; // kernels that could not be written to the disk cache
  double compile_seconds = 0; // on the engine's thread (the time flushes waited for the JIT)
  double execute_seconds = 0;
  // Tiered compilation: kernels whose optimized machine code replaced their fast code, and the
  // background thread's compile time (it overlaps the flushes).
  int64_t kernels_optimized = 0;
  double background_compile_seconds = 0;
  // Compile time per kernel by tier (core/profile.h).
  DurationHistogram fast_compiles, optimized_compiles;
};

class Engine {
public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;
  // Runs one block. Every base the block accesses, except the contracted ones, has its data
  // allocated (base->data != null) before the call; outputs are written in place.
  // Throws UserError for bad data (e.g. an out-of-range GATHER index); the engine stays usable.
  virtual void execute(const KernelBlock& block) = 0;
  // Optional: gets the block's kernel ready (compiled or loaded) before any of the flush's
  // blocks run, so the compiler's memory is not resident next to the flush's arrays. The
  // bases need no data yet. Errors are left to execute(), which reports them in order.
  // An engine may leave the block's state (KernelBlock::state) here already.
  virtual void prepare(const KernelBlock&) {}
  // Called by prepare() once per flush, just before its first compile or kernel load (the VEM
  // gives its cached buffers back to the OS there, so they are not resident next to the
  // compiler's memory).
  std::function<void()> before_jit;
  // Called by the VEM after the prepare() calls of a flush, before its first block runs.
  virtual void end_prepare() {}
  // Called by the VEM after the last block of a flush (also after a failed one).
  virtual void end_flush() {}
  // Blocks until work the engine does in the background (compiling optimized kernels) is
  // done; its results are used from the next block on. For tests and benchmarks.
  virtual void wait_background_work() {}
  virtual EngineStats stats() const = 0;
};

} // namespace hassium
