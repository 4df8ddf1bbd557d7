// GpuEngine: per plan slot the block's kernel plan and program (prepared once, a replay binds the
// new views and constants), residency of bases (DeviceMemory: a base lives on the device from its
// first device write until FREE; SYNC copies it to the host and the device copy stays valid; host
// data is uploaded at first use and again after a host write), launches by the launch geometry,
// the error record read at the end of a flush that ran checked kernels, and the embedded CPU
// engine for unsupported blocks.
#include "ve/gpu/gpu_engine.h"
#include "core/profile.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <thread>
#include <unordered_map>

#include "core/error.h"
#include "core/index_error.h"
#include "core/memory_error.h"
#include "core/sync_span.h"
#include "ve/gpu/kernel_source.h"
#include "ve/gpu/launch_geometry.h"
#include "ve/gpu/program_cache.h"
#include "ve/plan/kernel_plan.h"

namespace hassium {

namespace {
using gpu::DeviceBuffer;
using gpu::DeviceKernel;
using gpu::DeviceProgram;
using gpu::GpuDevice;
using gpu::KernelArgs;
using gpu::LaunchGeometry;
using plan::ArrayRole;
using plan::KernelPlan;
using plan::PlanArray;
using Clock = std::chrono::steady_clock;

// Whether a block's kernel can report bad data (checked at the end of the flush).
bool has_checks(const KernelPlan& p) {
  for (const plan::PlanInstr& in : p.instrs) {
    if (op_info(in.op).family == Family::INDEXING) return true;
    if (in.op == Opcode::POWER && is_signed_int(in.in)) return true;
  }
  return false;
}

// The options of the engine's CPU engine: it runs only some blocks of a flush, after bringing
// their own operands to the host, so it must not compute a later block's product early.
CpuOptions without_pairing(CpuOptions o) {
  o.pair_matvecs = false;
  return o;
}

class GpuEngine : public Engine, public DeviceMemory {
public:
  GpuEngine(std::unique_ptr<GpuDevice> device, const GpuOptions& o, std::string name)
      : device_(std::move(device)), options_(o), name_(std::move(name)),
        programs_(*device_, o.cache == KernelCacheMode::DISK ? o.cache_dir : std::string()),
        cpu_(make_cpu_engine(without_pairing(o.cpu))) {
    HS_USER_ASSERT(o.cache != KernelCacheMode::DISK || !o.cache_dir.empty())
        << "a GPU kernel cache on disk needs a cache_dir";
    HS_USER_ASSERT(device_->info().max_group_size >= size_t(gpu::kGroupSize))
        << "GPU device " << device_->info().name << " runs groups of at most "
        << device_->info().max_group_size << " work items; the engine needs " << gpu::kGroupSize;
    error_ = device_->allocate(6 * sizeof(int32_t));
    device_->fill_zero(error_);
  }
  ~GpuEngine() override {
    try {
      finish_queued_work();
    } catch (...) { // (an error or interrupt is no longer anyone's to report)
    }
    for (auto& [base, e] : resident_) device_->release(e.buffer);
    if (scratch_) device_->release(scratch_);
    device_->release(error_);
  }

  std::string_view name() const override { return name_; }
  DeviceMemory* device_memory() override { return this; }

  // Waits for everything queued on the device; SIGINT ends the wait (Interrupted).
  void finish_queued_work() override { device_->synchronize(); }

  EngineStats stats() const override {
    EngineStats s = stats_;
    const gpu::ProgramCacheStats& c = programs_.stats();
    s.kernels_compiled = c.compiled;
    s.memory_cache_hits = c.memory_hits + replay_hits_;
    s.disk_cache_hits = c.disk_hits;
    s.disk_cache_rejected = c.disk_rejected;
    s.disk_cache_write_errors = c.disk_write_errors;
    s.compile_seconds = c.compile_seconds;
    const EngineStats cpu = cpu_->stats();
    s.compile_seconds += cpu.compile_seconds;
    s.kernels_compiled += cpu.kernels_compiled;
    s.memory_cache_hits += cpu.memory_cache_hits;
    s.disk_cache_hits += cpu.disk_cache_hits;
    return s;
  }

  // --- plans -------------------------------------------------------------------------------
  struct Slot {
    KernelPlan plan;
    bool ready = false;
    bool on_gpu = false;
    std::string why; // why the block runs on the CPU engine
    gpu::KernelSource source;
    DeviceProgram* program = nullptr;
    std::vector<DeviceKernel*> kernels; // per source.entries: its entry in the program
    std::exception_ptr error;           // of the compile in prepare(), thrown by launch()
    bool counted = false; // its program was counted (compiled or found) since its last run
  };
  struct GpuPlan : EnginePlan {
    std::vector<Slot> slots;
    std::unique_ptr<EnginePlan> cpu;
  };

  std::unique_ptr<EnginePlan> make_plan(size_t blocks) override {
    auto p = std::make_unique<GpuPlan>();
    p->slots.resize(blocks);
    p->cpu = cpu_->make_plan(blocks);
    return p;
  }

  void prepare(EnginePlan& ep, size_t b, const KernelBlock& block) override {
    GpuPlan& p = static_cast<GpuPlan&>(ep);
    Slot& slot = slot_of(p, b);
    plan_slot(slot, block);
    if (needs_program(slot)) {
      slot.ready = false; // until end_prepare compiles it (else launch() plans it again)
      pending_.push_back(&slot);
    }
    if (!slot.on_gpu) cpu_->prepare(*p.cpu, b, block);
  }

  void end_prepare(EnginePlan& ep) override {
    compile_pending();
    cpu_->end_prepare(*static_cast<GpuPlan&>(ep).cpu);
    jit_announced_ = false;
  }

  // The programs of the slots in pending_ (the blocks prepare() planned, or the one launch()
  // planned), compiled together (NVRTC on every core: a flush's new kernels cost about the
  // slowest one's compile, not their sum); a compile error stays with its slot.
  void compile_pending() {
    std::vector<Slot*> slots;
    slots.swap(pending_);
    if (slots.empty()) return;
    std::vector<const std::string*> sources;
    for (Slot* s : slots) sources.push_back(&s->source.source);
    if (!jit_announced_ && before_jit) before_jit();
    jit_announced_ = true;
    const unsigned threads = std::max(1u, std::thread::hardware_concurrency());
    std::vector<gpu::ProgramCache::Found> found = programs_.get_all(sources, threads);
    for (size_t i = 0; i < slots.size(); ++i) {
      Slot& slot = *slots[i];
      try {
        if (found[i].error) std::rethrow_exception(found[i].error);
        slot.program = found[i].program;
        slot.counted = true;
        slot.kernels.clear();
        for (const std::string& e : slot.source.entries)
          slot.kernels.push_back(&slot.program->kernel(e + found[i].suffix));
        slot.ready = true;
      } catch (...) {
        slot.program = nullptr;
        slot.kernels.clear();
        slot.error = std::current_exception();
        slot.ready = false;
      }
    }
  }

  void reshape(EnginePlan& ep) override {
    GpuPlan& p = static_cast<GpuPlan&>(ep);
    for (Slot& s : p.slots) s.ready = false;
    cpu_->reshape(*p.cpu);
  }

  void bind(EnginePlan& ep, const Program& program) override {
    cpu_->bind(*static_cast<GpuPlan&>(ep).cpu, program);
  }

  void launch(EnginePlan& ep, size_t b, const KernelBlock& block) override {
    GpuPlan& p = static_cast<GpuPlan&>(ep);
    Slot& slot = slot_of(p, b);
    auto t0 = Clock::now();
    const double compile0 = programs_.stats().compile_seconds;
    // A replayed slot binds this block's constants; where they no longer share as its plan's
    // do, the block is planned again.
    if (slot.ready && slot.on_gpu && !plan::bind_plan(block, slot.plan, /*bind_data=*/false))
      slot.ready = false;
    if (!slot.ready) {
      plan_slot(slot, block);
      if (needs_program(slot)) {
        pending_.push_back(&slot);
        compile_pending();
      }
    }
    // A replay runs the slot's program again: a memory-cache hit, as the CPU engine counts it.
    if (slot.on_gpu && slot.program && !slot.counted) ++replay_hits_;
    slot.counted = false;
    if (slot.error) std::rethrow_exception(slot.error);
    if (!slot.on_gpu) {
      run_on_cpu(p, b, block);
    } else {
      if (slot.plan.empty_min_max)
        HS_USER_ERROR() << op_name(slot.plan.empty_min_max->op)
                        << ": zero-size array to a reduction operation that has no identity";
      if (!slot.plan.empty) run_on_gpu(slot);
    }
    ++stats_.blocks_executed;
    stats_.execute_seconds += seconds_since(t0) - (programs_.stats().compile_seconds - compile0);
  }

  void end_flush() override {
    pending_.clear(); // a flush that failed before end_prepare
    cpu_->end_flush();
    write_back_shared();
    if (++flushes_ % kSweepFlushes == 0) sweep();
    if (!checks_pending_) return;
    checks_pending_ = false;
    int32_t rec[6] = {0, 0, 0, 0, 0, 0};
    device_->copy_to_host(rec, error_, 0, sizeof rec);
    ++stats_.device_syncs;
    if (rec[0] == 0) return;
    device_->fill_zero(error_);
    auto word = [&](int i) {
      return int64_t(uint64_t(uint32_t(rec[i])) | (uint64_t(uint32_t(rec[i + 1])) << 32));
    };
    const int64_t value = word(2), bound = word(4);
    std::ostringstream msg;
    if (rec[0] == gpu::kErrorIndex) {
      msg << op_name(Opcode(rec[1])) << ": index " << value << " is out of bounds for size "
          << bound;
      throw IndexOutOfBounds(msg.str(), value, bound);
    }
    if (rec[0] == gpu::kErrorNegativePower) {
      msg << "POWER: integers to negative integer powers are not allowed (exponent " << value
          << ") in POWER of " << dtype_name(DType(rec[1] >> 16));
      throw UserError(msg.str());
    }
    msg << "kernel reported error " << rec[0];
    throw UserError(msg.str());
  }

  void wait_background_work() override { cpu_->wait_background_work(); }

  // --- DeviceMemory ------------------------------------------------------------------------
  bool resident(const Base& base) const override {
    auto it = resident_.find(&base);
    return it != resident_.end() && !stale(it->second, base);
  }

  void allocate(Base& base, bool zero_fill) override {
    drop_if_stale(base);
    Entry& e = entry_for(base);
    if (zero_fill) device_->fill_zero(e.buffer);
    e.device_valid = true;
    e.host_valid = false;
    e.partial_syncs = 0;
  }

  void sync(Base& base, const View& part) override {
    drop_if_stale(base);
    auto it = resident_.find(&base);
    if (it == resident_.end()) return;
    Entry& e = it->second;
    HS_INTERNAL_ASSERT(base.data) << "SYNC of " << base.name << " without host memory";
    if (!e.host_valid) {
      // A read of part of a large base copies that part's span only (core/sync_span.h: a few
      // times per device write); the host copy stays stale: device_newer stays set, so the next
      // read syncs again.
      const auto [lo, hi] = sync_span(part, e.partial_syncs);
      if (hi - lo < base.nelem) {
        if (hi > lo) copy_out(base, e, lo, hi);
        ++stats_.device_syncs;
        ++e.partial_syncs;
        return;
      }
      to_host(base, e);
      e.host_valid = true;
    }
    e.host_writes = base.host_writes;
    base.device_newer = false;
  }

  void release(Base& base) override {
    auto it = resident_.find(&base);
    if (it != resident_.end()) drop(it);
  }

private:
  // A base's device copy and which side holds its latest values.
  struct Entry {
    DeviceBuffer buffer;
    bool device_valid = false;
    bool host_valid = false;
    int partial_syncs = 0;    // SYNCs of a part of it since the device last wrote it
    uint64_t host_writes = 0; // base.host_writes when the two sides last agreed
    // The base it belongs to: a base that died without a FREE (a frontend's program dropped
    // whole) leaves its entry behind; a new base at the same address must not find it.
    std::weak_ptr<const Base> owner;
    bool owned = false; // `owner` was set (a base not made by make_shared has none)
  };

  static bool stale(const Entry& e, const Base& base) {
    if (!e.owned) return false;
    std::shared_ptr<const Base> alive = e.owner.lock();
    return !alive || alive.get() != &base;
  }
  void drop_if_stale(const Base& base) {
    auto it = resident_.find(&base);
    if (it != resident_.end() && stale(it->second, base)) drop(it);
  }
  void drop(std::unordered_map<const Base*, Entry>::iterator it) {
    device_bytes_ -= int64_t(it->second.buffer.bytes);
    device_->release(it->second.buffer);
    resident_.erase(it);
  }
  // Device memory of bases that died without a FREE goes back (once in a while).
  void sweep() {
    for (auto it = resident_.begin(); it != resident_.end();) {
      auto next = std::next(it);
      if (it->second.owned && it->second.owner.expired()) drop(it);
      it = next;
    }
  }

  static Slot& slot_of(GpuPlan& p, size_t b) {
    HS_INTERNAL_ASSERT(b < p.slots.size()) << "block " << b << " of a plan of " << p.slots.size();
    return p.slots[b];
  }

  // The slot's kernel plan, and its program's source when the GPU runs it (errors kept for
  // launch()); compile_pending() makes the program.
  void plan_slot(Slot& slot, const KernelBlock& block) {
    slot.ready = true;
    slot.error = nullptr;
    slot.program = nullptr;
    slot.kernels.clear();
    const Instruction& first = block.program->instrs[block.instrs.front()];
    if (first.info().family == Family::EXTENSION) {
      slot.on_gpu = false;
      slot.why = std::string(first.info().name) + " runs on the CPU engine";
      return;
    }
    plan::plan_block(block, slot.plan, /*bind_data=*/false);
    slot.on_gpu = gpu::supported(slot.plan, &slot.why);
    if (!slot.on_gpu || slot.plan.empty) return;
    try {
      slot.source =
          gpu::generate_source(slot.plan, device_->dialect(), device_->info().max_param_bytes);
    } catch (...) {
      slot.error = std::current_exception();
      slot.ready = false;
    }
  }
  static bool needs_program(const Slot& s) { return s.on_gpu && !s.plan.empty && !s.error; }

  Entry& entry_for(Base& base) {
    auto [it, added] = resident_.try_emplace(&base);
    if (added) {
      try {
        it->second.buffer = device_->allocate(size_t(std::max<int64_t>(base.nbytes(), 1)));
      } catch (const OutOfMemory& e) {
        resident_.erase(it);
        throw OutOfMemory(unable_to_allocate(base) + " on the " + name_ + " device (" + e.what() +
                          ")");
      }
      it->second.owner = base.weak_from_this();
      it->second.owned = !it->second.owner.expired();
      device_bytes_ += int64_t(it->second.buffer.bytes);
      stats_.device_peak_bytes = std::max(stats_.device_peak_bytes, device_bytes_);
    }
    return it->second;
  }

  void to_device(Base& base, Entry& e) {
    const size_t bytes = size_t(base.nbytes());
    device_->copy_to_device(e.buffer, 0, base.data, bytes);
    ++stats_.to_device_copies;
    stats_.to_device_bytes += int64_t(bytes);
  }
  void to_host(Base& base, Entry& e) {
    copy_out(base, e, 0, base.nelem);
    ++stats_.device_syncs;
  }
  // Elements [lo, hi) of the device copy into the host memory, counted.
  void copy_out(Base& base, Entry& e, int64_t lo, int64_t hi) {
    const size_t item = size_t(dtype_size(base.dtype)), bytes = size_t(hi - lo) * item;
    device_->copy_to_host(static_cast<char*>(base.data) + size_t(lo) * item, e.buffer,
                          size_t(lo) * item, bytes);
    ++stats_.to_host_copies;
    stats_.to_host_bytes += int64_t(bytes);
  }

  // The base's latest values on the device before a kernel uses it.
  DeviceBuffer on_device(Base& base) {
    drop_if_stale(base);
    auto it = resident_.find(&base);
    if (it == resident_.end()) {
      Entry& e = entry_for(base);
      if (base.data) {
        to_device(base, e);
        e.host_valid = true;
        e.host_writes = base.host_writes;
      } else {
        device_->fill_zero(e.buffer);
      }
      e.device_valid = true;
      return e.buffer;
    }
    Entry& e = it->second;
    const bool host_wrote =
        base.data && e.host_valid && (base.host_writes != e.host_writes || base.host_exported);
    if (!e.device_valid || host_wrote) {
      HS_INTERNAL_ASSERT(base.data) << "base " << base.name << " has no values anywhere";
      to_device(base, e);
      e.device_valid = true;
      e.host_valid = true;
      e.host_writes = base.host_writes;
    }
    return e.buffer;
  }

  // The base's latest values in host memory before the CPU engine uses it.
  void on_host(Base& base) {
    drop_if_stale(base);
    auto it = resident_.find(&base);
    if (it == resident_.end()) return; // host memory only (the VEM allocated it)
    Entry& e = it->second;
    if (!base.data) {
      const size_t bytes = size_t(std::max<int64_t>(base.nbytes(), 1));
      void* p = std::calloc(1, bytes);
      if (!p) throw OutOfMemory("cannot allocate host memory for " + base.name);
      base.allocation = std::shared_ptr<void>(p, [](void* q) { std::free(q); });
      base.data = p;
      e.host_valid = false;
    }
    if (!e.host_valid) {
      to_host(base, e);
      e.host_valid = true;
      e.host_writes = base.host_writes;
    }
    base.device_newer = false;
  }

  void run_on_cpu(GpuPlan& p, size_t b, const KernelBlock& block) {
    ++stats_.fallback_blocks;
    const Program& prog = *block.program;
    auto contracted = [&](const Base* base) {
      for (const Base* c : block.contracted)
        if (c == base) return true;
      return false;
    };
    for (size_t i : block.instrs) {
      const Instruction& in = prog.instrs[i];
      for (size_t k = 0; k < in.operands.size(); ++k)
        if (in.is_view(k) && !contracted(in.view(k).base.get())) on_host(*in.view(k).base);
    }
    cpu_->launch(*p.cpu, b, block);
    for (size_t i : block.instrs) {
      const Instruction& in = prog.instrs[i];
      if (!in.is_view(0)) continue;
      auto it = resident_.find(in.view(0).base.get());
      if (it != resident_.end()) it->second.device_valid = false; // the host has the news
    }
  }

  void run_on_gpu(Slot& slot) {
    KernelPlan& plan = slot.plan;
    KernelArgs args;
    const size_t na = plan.arrays.size();
    args.buffers.reserve(na + 2);
    args.params = plan.params;
    args.params.resize(gpu::launch_slots(plan) + gpu::LAUNCH_SCRATCH, 0);
    args.params_by_value = slot.source.params_by_value;
    size_t offset = gpu::offset_slots(plan);
    for (size_t i = 0; i < na; ++i) {
      const PlanArray& a = plan.arrays[i];
      if (a.contracted) continue;
      args.buffers.push_back(on_device(*a.view->base));
      args.params[offset++] = a.view->offset;
    }
    const size_t L = gpu::launch_slots(plan);
    const gpu::DeviceInfo& info = device_->info();
    auto run = [&](const char* entry, const LaunchGeometry& g) {
      HS_INTERNAL_ASSERT(args.params.size() == slot.source.param_count)
          << args.params.size() << " params for a kernel of " << slot.source.param_count;
      size_t e = 0;
      while (e < slot.kernels.size() && slot.source.entries[e] != entry) ++e;
      HS_INTERNAL_ASSERT(e < slot.kernels.size()) << "a program without its entry " << entry;
      device_->launch(*slot.kernels[e], g, args);
      ++stats_.launches;
    };
    if (!slot.source.reduction && !plan.has_scan) {
      const int64_t n = plan.total();
      args.params[L + gpu::LAUNCH_N] = n;
      args.buffers.push_back(DeviceBuffer{});
      args.buffers.push_back(error_);
      run(gpu::kElementsEntry, gpu::grid_geometry(n, info, slot.source.sequential));
    } else {
      const int64_t K = plan.extent(plan.axis);
      int64_t rows = 1;
      for (int k = 0; k < plan.ndim; ++k)
        if (k != plan.axis) rows *= plan.extent(k);
      args.params[L + gpu::LAUNCH_N] = rows;
      args.params[L + gpu::LAUNCH_K] = K;
      gpu::ReductionLaunch r;
      if (slot.source.reduction)
        r = gpu::reduction_geometry(rows, K, gpu::kGroupSize, info, plan.axis == plan.ndim - 1);
      else // a scan: one chunk per row
        r.first = gpu::grid_geometry(rows, info);
      if (slot.source.sequential) r.first = gpu::grid_geometry(1, info, true);
      args.params[L + gpu::LAUNCH_CHUNKS] = r.chunks;
      args.params[L + gpu::LAUNCH_CHUNK] = r.chunk > 0 ? r.chunk : K;
      size_t at = 0;
      for (const plan::PlanInstr& in : plan.instrs) {
        if (op_info(in.op).family != Family::REDUCTION) continue;
        if (plan.arrays[size_t(in.operands[0].index)].contracted) continue;
        args.params.push_back(int64_t(at));
        at += (size_t(rows * r.chunks) * size_t(dtype_size(in.in)) + 15) / 16 * 16;
      }
      args.buffers.push_back(r.chunks > 1 ? scratch(at) : DeviceBuffer{});
      args.buffers.push_back(error_);
      run(r.groups ? gpu::kGroupsEntry : gpu::kRowsEntry, r.first);
      if (r.chunks > 1) run(gpu::kCombineEntry, r.second);
    }
    if (has_checks(plan)) checks_pending_ = true;
    for (const PlanArray& a : plan.arrays) {
      if (a.contracted || !a.written) continue;
      Base& base = *a.view->base;
      Entry& e = resident_.at(&base);
      e.device_valid = true;
      e.host_valid = false;
      e.partial_syncs = 0;
      base.device_newer = base.data != nullptr; // host memory that is now stale
      if (base.data && base.host_exported) shared_written_.push_back(&base);
    }
  }

  // Memory shared with NumPy (host_exported) that the device wrote: copied back at the end of
  // the flush, as the CPU engine's writes land there at once (NumPy reads it without a SYNC).
  void write_back_shared() {
    std::vector<const Base*> bases;
    bases.swap(shared_written_);
    for (const Base* b : bases) {
      auto it = resident_.find(b);
      if (it == resident_.end() || stale(it->second, *b)) continue; // FREEd in the flush
      Base& base = const_cast<Base&>(*b);
      Entry& e = it->second;
      if (!e.host_valid && e.device_valid && base.data) {
        to_host(base, e);
        e.host_valid = true;
        e.host_writes = base.host_writes;
      }
      base.device_newer = false;
    }
  }

  // Partials of split reductions (grown, never shrunk; the queue orders its uses).
  DeviceBuffer scratch(size_t bytes) {
    if (scratch_.bytes < bytes) {
      if (scratch_) device_->release(scratch_);
      scratch_ = device_->allocate(bytes);
    }
    return scratch_;
  }

  std::unique_ptr<GpuDevice> device_;
  GpuOptions options_;
  std::string name_;
  gpu::ProgramCache programs_;
  std::unique_ptr<Engine> cpu_;
  std::unordered_map<const Base*, Entry> resident_;
  DeviceBuffer error_;   // the error record every kernel gets
  DeviceBuffer scratch_; // partials
  bool checks_pending_ = false;
  std::vector<Slot*> pending_;              // slots prepare() planned, to compile at end_prepare()
  std::vector<const Base*> shared_written_; // host_exported bases the flush wrote on the device
  static constexpr int64_t kSweepFlushes = 64;
  int64_t flushes_ = 0;
  bool jit_announced_ = false;
  int64_t device_bytes_ = 0;
  int64_t replay_hits_ = 0; // launches of a slot's kept program
  EngineStats stats_;
};

} // namespace

std::unique_ptr<Engine> make_gpu_engine(std::unique_ptr<gpu::GpuDevice> device,
                                        const GpuOptions& options, std::string name) {
  HS_INTERNAL_ASSERT(device) << "a GPU engine without a device";
  return std::make_unique<GpuEngine>(std::move(device), options, std::move(name));
}

} // namespace hassium
