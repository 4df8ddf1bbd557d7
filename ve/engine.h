// Engine: the interface every vector engine (cpu; gpu, cluster pieces later) implements; a VEM
// drives it per flush plan and per block.
//
// The life of a flush, as the node VEM drives it (vem/node/node_vem.h):
//   plan = make_plan(blocks)            once per distinct flush plan (kept with the VEM's plan)
//   prepare(plan, b, block) ...         per block, when the plan is new or its views reshaped:
//   end_prepare(plan)                     kernels compiled or loaded; the bases need no data
//   bind(plan, program)                 every flush: the program whose bases the blocks use
//   launch(plan, b, block) ...          every flush, per block in order, data allocated
//   end_flush()                         every flush, also after an error
// A replay of the plan (the same program up to base names and constants, or views that only
// moved) skips prepare: launch binds the new bases, offsets and constants itself. After
// reshape(plan) (extents or strides changed) the next flush prepares again.
//
// Memory: host memory comes from the VEM's pool; an engine with memory of its own (a GPU's)
// returns its DeviceMemory, which the VEM tells about first writes, SYNCs and FREEs, so data
// stays where it was computed until the host needs it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/duration_histogram.h"
#include "core/program.h"

namespace hassium {

// One fused block as the VEM hands it to an engine.
struct KernelBlock {
  const Program* program = nullptr;
  // Indices into program->instrs, ascending (program order). System instructions (FREE, SYNC)
  // are handled by the VEM and never appear here.
  std::vector<size_t> instrs;
  // Bases created and FREEd inside this block (the paper's contraction): the engine keeps
  // their values in registers and never reads or writes base->data for them.
  std::vector<const Base*> contracted;
};

// What an engine derived from a flush plan's blocks (their kernels, launch geometry, argument
// buffers), owned by the VEM's plan and opaque to it. Destroyed before the engine.
struct EnginePlan {
  virtual ~EnginePlan() = default;
};

// Memory an engine keeps apart from the host's (a GPU's). Bases are named by pointer; the
// engine keeps its handles on them (Base has no device fields: an engine maps them). The VEM
// calls it where it would allocate, SYNC or free host memory: a base written first on the
// device lives there (base->data stays null) until the host reads it (SYNC) or it is freed. A
// base with host data (a frontend's array) is the engine's to copy to the device at its first
// launch.
class DeviceMemory {
public:
  virtual ~DeviceMemory() = default;
  // Whether the base has memory on the device.
  virtual bool resident(const Base& base) const = 0;
  // Before the block of the base's first write (the base has no host data): memory on the
  // device, zeros when `zero_fill` (the block reads it before anything wrote it).
  virtual void allocate(Base& base, bool zero_fill) = 0;
  // SYNC of a resident base: base->data (host memory the VEM allocated) receives the values of
  // `part` (the SYNC's view), at least; of the whole base when it leaves Base::device_newer
  // false. (A frontend reading one element asks for that element: a loop reading a pivot of a
  // matrix the device keeps writing copies the pivot, not the matrix.)
  virtual void sync(Base& base, const View& part) = 0;
  // FREE, or the base's last use in the flush: its device memory goes back (none: nothing).
  virtual void release(Base& base) = 0;
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
  int64_t blocks_interpreted = 0; // runs on step kernels (ve/cpu/interpreter.h)
  int64_t matvecs_paired = 0;     // products run in another's pass (ve/cpu/paired_matvec.h)
  double background_compile_seconds = 0;
  // Compile time per kernel by tier (core/profile.h).
  DurationHistogram fast_compiles, optimized_compiles;
  // An engine with memory of its own (a GPU's): copies each way (array data only), kernel
  // launches, waits for the device, blocks it handed to its CPU engine, its peak memory.
  int64_t to_device_copies = 0, to_device_bytes = 0;
  int64_t to_host_copies = 0, to_host_bytes = 0;
  int64_t launches = 0, device_syncs = 0, fallback_blocks = 0, device_peak_bytes = 0;
};

class Engine {
public:
  virtual ~Engine() = default;
  virtual std::string_view name() const = 0;

  // --- per flush plan ------------------------------------------------------------------------
  // The engine's state for a plan of `blocks` blocks (default: none to keep).
  virtual std::unique_ptr<EnginePlan> make_plan(size_t blocks);
  // Gets block b's kernel ready (compiled or loaded), before any of the flush's blocks runs, so
  // the compiler's memory is not resident next to the flush's arrays. The bases need no data.
  // Errors are left to launch(), which reports them in order. Optional.
  virtual void prepare(EnginePlan&, size_t /*block*/, const KernelBlock&) {}
  // After the prepare() calls of a flush, before its first launch (an engine may compile the
  // prepared blocks together here).
  virtual void end_prepare(EnginePlan&) {}
  // The plan's views changed extents or strides (not only offsets): what the engine derived
  // from the geometry is made anew by the next prepare() (or launch()).
  virtual void reshape(EnginePlan&) {}

  // --- per flush -----------------------------------------------------------------------------
  // Before the flush's launches: the program whose bases and constants they use.
  virtual void bind(EnginePlan&, const Program&) {}
  // Runs block b. Every base the block accesses, except the contracted ones, has its data
  // (host, or the device's through DeviceMemory) before the call; outputs are written in
  // place. Throws UserError for bad data (e.g. an out-of-range GATHER index); the engine stays
  // usable. Blocks of the same structure as the one prepared in the slot run from its state.
  virtual void launch(EnginePlan&, size_t block, const KernelBlock&) = 0;
  // Called by the VEM after the last block of a flush (also after a failed one); an engine
  // that runs asynchronously finishes (and reports a kernel's error) here.
  virtual void end_flush() {}

  // The engine's own memory (a GPU's); null: the bases live in host memory.
  virtual DeviceMemory* device_memory() { return nullptr; }
  // Blocks until work the engine does in the background (compiling optimized kernels) is
  // done; its results are used from the next block on. For tests and benchmarks.
  virtual void wait_background_work() {}
  // Blocks until work the engine queued asynchronously (a device's launches) has run
  // (Backend::finish_queued_work).
  virtual void finish_queued_work() {}
  virtual EngineStats stats() const = 0;

  // Called by prepare() once per flush, just before its first compile or kernel load (the VEM
  // gives its cached buffers back to the OS there, so they are not resident next to the
  // compiler's memory).
  std::function<void()> before_jit;

  // One block outside any kept plan (tests, one-off programs): make_plan(1), prepare,
  // end_prepare, launch.
  void execute(const KernelBlock& block);
};

} // namespace hassium

namespace hassium {

inline std::unique_ptr<EnginePlan> Engine::make_plan(size_t) {
  return std::make_unique<EnginePlan>();
}

inline void Engine::execute(const KernelBlock& block) {
  std::unique_ptr<EnginePlan> plan = make_plan(1);
  prepare(*plan, 0, block);
  end_prepare(*plan);
  launch(*plan, 0, block);
}

} // namespace hassium
