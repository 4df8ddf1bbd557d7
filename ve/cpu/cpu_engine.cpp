// CpuEngine: per block, kernel plan -> kernel (memory cache, else compile or load from disk) ->
// launch, kept per flush plan slot (CpuPlan) so a replay only binds and runs;
// MATMUL blocks go to BLAS, the sorting extensions to ve/cpu/sorting.cpp. Kernel errors (bad
// indices, negative integer powers) become UserErrors. With tiered compilation a new kernel
// runs on fast-tier machine code until the background compiler's optimized code replaces it.
#include "ve/cpu/cpu_engine.h"
#include "core/profile.h"

#include <chrono>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "core/error.h"
#include "core/index_error.h"
#include "ve/cpu/background_compiler.h"
#include "ve/cpu/code_pages.h"
#include "ve/cpu/jit_compiler.h"
#include "ve/cpu/launcher.h"
#include "ve/cpu/matmul.h"
#include "ve/cpu/object_cache.h"
#include "ve/cpu/openmp.h"
#include "ve/cpu/paired_matvec.h"
#include "ve/cpu/parallel_choice.h"
#include "ve/cpu/plan.h"
#include "ve/cpu/sorting.h"

namespace hassium {

const Registry<KernelCacheMode>& kernel_cache_registry() {
  static const Registry<KernelCacheMode> registry(
      "cpu.kernel_cache", "kernel cache mode",
      {{"none", KernelCacheMode::NONE, "every block's kernel is compiled anew"},
       {"memory", KernelCacheMode::MEMORY, "kernels of this process"},
       {"disk", KernelCacheMode::DISK, "object files shared between processes, in cache_dir"}});
  return registry;
}

namespace cpu {
namespace {
using Clock = std::chrono::steady_clock;

// The instruction of a block a kernel error is about.
const Instruction* find_op(const KernelBlock& block, Opcode op) {
  for (size_t i : block.instrs)
    if (block.program->instrs[i].op == op) return &block.program->instrs[i];
  return nullptr;
}

[[noreturn]] void throw_kernel_error(const KernelBlock& block, const KernelError& err) {
  std::ostringstream msg;
  const Instruction& first = block.program->instrs[block.instrs.front()];
  switch (err.code) {
  case KERNEL_INDEX_OUT_OF_RANGE: {
    // Named after the block's first indexing instruction (the block may start with another op).
    Opcode op = first.op;
    for (size_t i : block.instrs)
      if (op_info(block.program->instrs[i].op).family == Family::INDEXING) {
        op = block.program->instrs[i].op;
        break;
      }
    msg << op_name(op) << ": index " << err.value << " is out of bounds for size " << err.bound;
    throw IndexOutOfBounds(msg.str(), err.value, err.bound);
  }
  case KERNEL_NEGATIVE_INT_POWER: {
    const Instruction* p = find_op(block, Opcode::POWER);
    msg << "POWER: integers to negative integer powers are not allowed (exponent " << err.value
        << ")";
    if (p) msg << " in " << op_name(p->op) << " of " << dtype_name(p->dtype(0));
    break;
  }
  default:
    msg << "kernel reported error " << err.code;
  }
  throw UserError(msg.str());
}

// Loads OpenMP with the engine's wait policy (only the first load in a process applies one; see
// openmp.h), then the threads per kernel: as configured, else OpenMP's default.
int thread_count(const CpuOptions& o) {
  load_openmp(o.wait_policy);
  return o.threads > 0 ? o.threads : openmp_max_threads();
}

class CpuEngine : public Engine {
public:
  explicit CpuEngine(const CpuOptions& o)
      : options_(o), threads_(thread_count(o)),
        jit_(o.opt_level, o.cache == KernelCacheMode::DISK ? o.cache_dir : std::string(),
             o.cache == KernelCacheMode::NONE, o.large_kernel) {
    HS_USER_ASSERT(o.cache != KernelCacheMode::DISK || !o.cache_dir.empty())
        << "[cpu] kernel_cache = disk needs a cache_dir";
    if (o.cache != KernelCacheMode::NONE)
      jit_.add_library(o.step_dir == "auto" ? std::string(HASSIUM_STEP_DIR) : o.step_dir);
    if (o.tiered_compile && o.cache != KernelCacheMode::NONE && o.opt_level > 0) {
      std::function<void()> drained;
      if (o.drop_compiler_pages) drained = [] { drop_code_pages(); };
      background_ = std::make_unique<cpu::BackgroundCompiler>(
          jit_, std::move(drained), [this] { warm_up(); },
          o.optimize_at_exit && o.cache == KernelCacheMode::DISK);
    }
  }

  std::string_view name() const override { return "cpu"; }
  EngineStats stats() const override {
    EngineStats s = stats_;
    if (background_) s.disk_cache_write_errors += background_->errors();
    if (const cpu::DiskObjectCache* disk = jit_.disk_cache()) {
      s.disk_cache_rejected = int64_t(disk->stats().rejected);
      s.disk_cache_write_errors = int64_t(disk->stats().write_errors);
    }
    return s;
  }

  std::unique_ptr<EnginePlan> make_plan(size_t blocks) override {
    auto plan = std::make_unique<CpuPlan>();
    plan->blocks.resize(blocks);
    return plan;
  }

  // Gets the flush's kernels up front, all new ones compiled together in end_prepare() (one
  // module: the compiler's fixed costs once per flush; counted as compiles or disk hits, and
  // the block's first launch then runs it without counting a hit), and so that end_prepare()
  // can drop the compiler's pages before the flush allocates its arrays.
  void prepare(EnginePlan& p, size_t b, const KernelBlock& block) override {
    if (options_.cache == KernelCacheMode::NONE) return;
    if (background_ && background_->has_finished()) install_optimized();
    if (options_.pair_matvecs) pair_matvecs(static_cast<CpuPlan&>(p), b, block);
    const Instruction& first = block.program->instrs[block.instrs.front()];
    if (first.info().family == Family::EXTENSION) return;
    CpuPlan::Block& slot = slot_of(p, b);
    slot.ready = false;
    // A slot that ran a kernel before (its flush plan replayed for other extents): the block's
    // geometry is planned again, and the same structure keeps the kernel without a lookup.
    Kept* had = slot.kernel;
    const bool same = had && replan_block(block, slot.plan, /*bind_data=*/false);
    if (!had) plan_block(block, slot.plan, /*bind_data=*/false);
    if (slot.plan.empty_min_max) return; // launch() reports it
    if (slot.plan.empty) {
      slot.kernel = nullptr;
      slot.ready = true;
      return;
    }
    if (same) {
      kept_ready(slot, had, false);
      return;
    }
    if (auto it = memory_.find(slot.plan.spec); it != memory_.end()) {
      // A kernel of an earlier flush: the launch counts the memory hit.
      kept_ready(slot, &it->second, false);
      return;
    }
    auto [it, added] = pending_index_.emplace(slot.plan.spec, pending_.size());
    if (added)
      pending_.push_back(&slot);
    else if (pending_[it->second] != &slot)     // (the slot itself prepared again: nothing to add)
      waiting_.emplace_back(&slot, it->second); // a kernel another block of the flush compiles
  }

  // Compiles what prepare() found new. The compiler's pages are dropped after a flush's
  // compiles, unless the background compiler is busy (it drops them itself when its queue
  // empties).
  void end_prepare(EnginePlan&) override {
    if (!pending_.empty()) compile_pending();
    if (compiled_since_flush_ && options_.drop_compiler_pages && background_idle())
      drop_code_pages();
    compiled_since_flush_ = false;
  }

  void reshape(EnginePlan& p) override {
    for (CpuPlan::Block& slot : static_cast<CpuPlan&>(p).blocks) slot.ready = false;
    static_cast<CpuPlan&>(p).last_prepared = -1; // prepared again: paired again
  }

  void launch(EnginePlan& p, size_t b, const KernelBlock& block) override {
    if (background_ && background_->has_finished()) install_optimized();
    auto t0 = Clock::now();
    double compile = 0;
    HS_INTERNAL_ASSERT(block.program && !block.instrs.empty()) << "empty block";
    const Instruction& first = block.program->instrs[block.instrs.front()];
    CpuPlan::Block& slot = slot_of(p, b);
    if (first.info().family == Family::EXTENSION) {
      HS_INTERNAL_ASSERT(block.instrs.size() == 1)
          << op_name(first.op) << " must be alone in its block";
      if (first.op == Opcode::MATMUL) {
        // Resolved at the first product, when a Python program has NumPy's BLAS loaded.
        if (!blas_) blas_ = &cpu::blas(options_.blas);
        if (slot.paired_ready) {
          slot.paired_ready = false;
          write_result(*matvec_of(first), slot.paired); // computed by the block paired with it
        } else if (!run_paired_matvecs(p, slot, block)) {
          run_matmul(first, *blas_);
        }
      } else {
        run_sorting(first, threads_);
      }
    } else if (slot.ready && bind_plan(block, slot.plan)) {
      // Prepared, or the same structure as the block that ran in this slot before: this block's
      // pointers, offsets and constants bound (unless its constants no longer share as the
      // plan's do: planned again below), run the kernel.
      if (!slot.counted) ++stats_.memory_cache_hits;
      slot.counted = false;
      if (!slot.plan.empty) {
        run(block, slot.plan, *slot.kernel, t0);
        return;
      }
    } else {
      plan_block(block, slot.plan);
      if (slot.plan.empty_min_max)
        HS_USER_ERROR() << op_name(slot.plan.empty_min_max->op)
                        << ": zero-size array to a reduction operation that has no identity";
      Kept* k = slot.plan.empty ? nullptr : &kernel_for(slot.plan, compile);
      // Kept kernels live as long as the engine (the memory cache never drops one).
      if (options_.cache != KernelCacheMode::NONE) {
        slot.kernel = k;
        slot.ready = true;
        slot.plan.spec = std::string(); // the memory-cache key: not needed to run again
      }
      if (k) {
        run(block, slot.plan, *k, compile > 0 ? Clock::now() : t0);
        return;
      }
    }
    ++stats_.blocks_executed;
    stats_.execute_seconds += seconds_since(t0) - compile;
  }

  void end_flush() override {
    if (compiled_since_flush_ && options_.drop_compiler_pages && background_idle())
      drop_code_pages();
    compiled_since_flush_ = false;
    pending_.clear(); // (a flush that failed while preparing)
    waiting_.clear();
    pending_index_.clear();
  }

  void wait_background_work() override {
    if (!background_) return;
    background_->wait_idle();
    install_optimized();
  }

  JitCompiler& jit() { return jit_; }

private:
  // A kernel in the memory cache: its code and, while that is fast-tier code its optimized
  // code will replace, how long it ran.
  struct Kept {
    CompiledKernel fns;
    const std::string* spec = nullptr; // its key in memory_
    bool fast = false;
    bool boosted = false; // sent to the background compiler's hot lane
    double fast_seconds = 0;
    // The block on step kernels, until fns has its optimized code (or always: ALWAYS).
    std::unique_ptr<cpu::InterpretedKernel> interp;
  };
  // Fast-tier run time past which a kernel is hot: about what its optimized compile costs.
  static constexpr double kHotSeconds = 0.005;

  // The engine's part of a flush plan: per block, its kernel plan and kernel once prepared
  // or run (a replay binds the new pointers, offsets and constants into the plan and runs).
  struct CpuPlan : EnginePlan {
    struct Block {
      KernelPlan plan;
      Kept* kernel = nullptr; // in memory_; null when the plan is empty
      bool ready = false;     // plan and kernel fit the blocks this slot runs
      bool counted = false;   // its kernel was counted (compiled or loaded) by this flush
      // Paired matrix-vector products (ve/cpu/paired_matvec.h): a MATMUL block whose pass also
      // computes the product of the later block `pair` (its MATMUL: the program's instruction
      // `pair_instr`); the later block's result, computed so, until it runs.
      int64_t pair = -1;
      size_t pair_instr = 0;
      std::vector<double> paired;
      bool paired_ready = false;
    };
    std::vector<Block> blocks;
    // While a flush's blocks are prepared: the matrix-vector blocks still unpaired, each with
    // the bases written since (its own output first), which a later product must not read.
    struct OpenMatvec {
      size_t block, instr;
      std::vector<const Base*> written;
    };
    std::vector<OpenMatvec> open_matvecs;
    int64_t last_prepared = -1;
  };

  // Pairs matrix-vector MATMUL blocks of the flush being prepared (block b next, in order): b
  // pairs with the first open one of an identical matrix view when no block since that one
  // (itself included) wrote b's matrix or vector; else b's writes join every open one's list,
  // and b opens when it is a product itself.
  void pair_matvecs(CpuPlan& p, size_t b, const KernelBlock& block) {
    constexpr size_t kMaxWritten = 64; // past this many bases written since, a block closes
    if (int64_t(b) <= p.last_prepared) p.open_matvecs.clear(); // a new pass over the blocks
    p.last_prepared = int64_t(b);
    CpuPlan::Block& slot = slot_of(p, b);
    slot.pair = -1;
    slot.paired_ready = false;
    const Program& program = *block.program;
    std::optional<Matvec> mv;
    if (block.instrs.size() == 1) mv = matvec_of(program.instrs[block.instrs.front()]);
    bool paired = false;
    if (mv)
      for (auto it = p.open_matvecs.begin(); it != p.open_matvecs.end(); ++it) {
        if (!matvec_of(program.instrs[it->instr])->matrix->identical(*mv->matrix)) continue;
        auto read = [&](const Base* w) {
          return w == mv->matrix->base.get() || w == mv->vector->base.get();
        };
        if (std::any_of(it->written.begin(), it->written.end(), read)) continue;
        CpuPlan::Block& first = slot_of(p, it->block);
        first.pair = int64_t(b);
        first.pair_instr = block.instrs.front();
        p.open_matvecs.erase(it);
        paired = true;
        break;
      }
    for (size_t i : block.instrs) {
      const Instruction& ins = program.instrs[i];
      if (ins.is_system() || !ins.is_view(0)) continue;
      for (CpuPlan::OpenMatvec& o : p.open_matvecs) o.written.push_back(ins.view(0).base.get());
    }
    std::erase_if(p.open_matvecs,
                  [&](const CpuPlan::OpenMatvec& o) { return o.written.size() > kMaxWritten; });
    if (mv && !paired) p.open_matvecs.push_back({b, block.instrs.front(), {mv->out->base.get()}});
  }

  // Runs the slot's MATMUL with the product of the block paired with it in one pass, when the
  // views as they are now allow it (ve/cpu/paired_matvec.h); false: the slot runs alone.
  bool run_paired_matvecs(EnginePlan& p, CpuPlan::Block& slot, const KernelBlock& block) {
    if (slot.pair < 0) return false;
    CpuPlan::Block& second = slot_of(p, size_t(slot.pair));
    second.paired_ready = false;
    std::optional<Matvec> a = matvec_of(block.program->instrs[block.instrs.front()]);
    std::optional<Matvec> b = matvec_of(block.program->instrs[slot.pair_instr]);
    if (!a || !b || !pairable(*a, *b)) return false;
    run_paired(*a, *b, threads_, second.paired);
    second.paired_ready = true;
    ++stats_.matvecs_paired;
    return true;
  }

  static CpuPlan::Block& slot_of(EnginePlan& p, size_t b) {
    auto& blocks = static_cast<CpuPlan&>(p).blocks;
    HS_INTERNAL_ASSERT(b < blocks.size()) << "block " << b << " of a plan of " << blocks.size();
    return blocks[b];
  }

  static void kept_ready(CpuPlan::Block& slot, Kept* kernel, bool counted) {
    slot.kernel = kernel;
    slot.ready = true;
    slot.counted = counted;
    slot.plan.spec = std::string(); // the memory-cache key: not needed to run again
  }

  // Runs a block's kernel and counts the block; its time from t0 (the launch's start, or the
  // end of its compile) is the execution time and what the thread choice and the tiering see:
  // two clock reads a block (a flush of 4x4 products launches ~10^6 blocks a second).
  void run(const KernelBlock& block, KernelPlan& plan, Kept& kept, Clock::time_point t0) {
    const CompiledKernel& k = kept.fns;
    // A kernel free to cut and big enough to: one thread or all, as its launches measured.
    const bool interpreted =
        kept.interp && (!k.kernel || options_.interpreter == cpu::InterpreterMode::ALWAYS);
    int threads = threads_;
    cpu::ParallelChoice* choice = nullptr;
    const int64_t total = plan.total();
    if (options_.adaptive_threads && threads_ > 1 && plan.chunks == 0 &&
        total >= cpu::kParallelMin) {
      const void* id = interpreted ? static_cast<const void*>(kept.interp.get())
                                   : reinterpret_cast<const void*>(k.kernel);
      choice = &choices_[id];
      if (!choice->parallel(total)) threads = 1;
    }
    KernelError err = interpreted ? cpu::launch(plan, *kept.interp, threads)
                                  : cpu::launch(plan, k, threads, scratch_);
    stats_.blocks_interpreted += interpreted;
    const double seconds = seconds_since(t0);
    ++stats_.blocks_executed;
    stats_.execute_seconds += seconds;
    if (choice) choice->record(total, threads > 1, seconds);
    if (kept.fast && !kept.boosted) {
      // Fast-tier code that has run long enough is worth its optimized code soon: to the
      // background compiler's hot lane (normal priority).
      kept.fast_seconds += seconds;
      if (kept.fast_seconds >= kHotSeconds) {
        kept.boosted = true;
        background_->boost(*kept.spec);
      }
    }
    if (options_.cache == KernelCacheMode::NONE) jit_.release();
    if (err.code != KERNEL_OK) throw_kernel_error(block, err);
  }

  Kept& kernel_for(const KernelPlan& plan, double& compile) {
    if (options_.cache != KernelCacheMode::NONE) {
      auto it = memory_.find(plan.spec);
      if (it != memory_.end()) {
        ++stats_.memory_cache_hits;
        return it->second;
      }
    }
    CompileResult r = jit_.compile(plan, background_ ? cpu::Tier::FAST : cpu::Tier::OPTIMIZED);
    compile = r.seconds;
    stats_.compile_seconds += r.seconds;
    note_compile(r);
    if (options_.cache == KernelCacheMode::NONE) {
      count(r);
      transient_ = Kept{r.fns, nullptr, false, false, 0, nullptr};
      return transient_;
    }
    return keep(plan, r);
  }

  // The kernels prepare() found new, compiled: together by the fast code generator (tiered),
  // else one by one; every slot waiting for one gets it.
  void compile_pending() {
    if (before_jit) before_jit();
    auto t0 = Clock::now();
    std::vector<Kept*> kept(pending_.size(), nullptr);
    // Blocks the interpreter runs (their kernels compile in the background), and the step
    // kernels they need that are not kept yet.
    std::vector<std::unique_ptr<cpu::InterpretedKernel>> interpreted(pending_.size());
    std::vector<const KernelPlan*> plans, steps;
    std::vector<size_t> compiled_blocks;
    std::unordered_set<std::string_view> queued_steps;
    for (size_t i = 0; i < pending_.size(); ++i) {
      const KernelPlan& plan = pending_[i]->plan;
      if (interprets(plan)) {
        CompileResult found;
        if (options_.interpreter == cpu::InterpreterMode::FIRST && jit_.find(plan, found)) {
          kept[i] = &keep(plan, found);
          continue;
        }
        auto interp = std::make_unique<cpu::InterpretedKernel>(plan);
        const auto& own = interp->step_plans();
        if (own.size() > 1 || own[0].spec != plan.spec) { // (else its kernel is its one step)
          for (const KernelPlan& step : own)
            if (!memory_.count(step.spec) && queued_steps.insert(step.spec).second)
              steps.push_back(&step);
          interpreted[i] = std::move(interp);
          continue;
        }
      }
      compiled_blocks.push_back(i);
      plans.push_back(&plan);
    }
    // A step that is also a block's kernel compiles once, as the block's.
    for (size_t i : compiled_blocks) queued_steps.erase(pending_[i]->plan.spec);
    for (const KernelPlan* step : steps)
      if (queued_steps.count(step->spec)) plans.push_back(step);
    std::vector<CompileResult> results;
    if (background_) {
      results = jit_.compile_fast(plans);
    } else {
      for (const KernelPlan* p : plans) results.push_back(jit_.compile(*p, cpu::Tier::OPTIMIZED));
    }
    for (size_t k = 0; k < results.size(); ++k) {
      Kept& made = keep(*plans[k], results[k]);
      if (k < compiled_blocks.size()) kept[compiled_blocks[k]] = &made;
    }
    for (size_t i = 0; i < pending_.size(); ++i) {
      if (interpreted[i]) kept[i] = &keep_interpreted(pending_[i]->plan, std::move(interpreted[i]));
      kept_ready(*pending_[i], kept[i], true);
    }
    for (auto [slot, i] : waiting_) kept_ready(*slot, kept[i], false);
    const double seconds = seconds_since(t0);
    stats_.compile_seconds += seconds;
    // A batch's time shared by the kernels it compiled (the fast tier); one by one otherwise.
    int64_t compiled = 0;
    for (const CompileResult& r : results) compiled += r.outcome == CompileOutcome::COMPILED;
    if (background_ && compiled > 0)
      stats_.fast_compiles.add(seconds / double(compiled), compiled);
    else if (!background_)
      for (const CompileResult& r : results) note_compile(r);
    pending_.clear();
    waiting_.clear();
    pending_index_.clear();
  }

  void note_compile(const CompileResult& r) {
    if (r.outcome != CompileOutcome::COMPILED) return;
    (r.tier == cpu::Tier::FAST ? stats_.fast_compiles : stats_.optimized_compiles).add(r.seconds);
  }

  void count(const CompileResult& r) {
    compiled_since_flush_ = true;
    switch (r.outcome) {
    case CompileOutcome::COMPILED:
      ++stats_.kernels_compiled;
      break;
    case CompileOutcome::LOADED_FROM_DISK:
      ++stats_.disk_cache_hits;
      break;
    case CompileOutcome::ALREADY_LOADED:
      ++stats_.memory_cache_hits;
      break;
    }
  }

  // A compiled (or found) kernel into the memory cache; fast code goes to the background
  // compiler for its optimized version.
  Kept& keep(const KernelPlan& plan, const CompileResult& r) {
    count(r);
    const bool fast = !r.final && background_;
    if (fast) background_->submit(plan.spec, plan);
    auto [it, added] = memory_.emplace(plan.spec, Kept{r.fns, nullptr, fast, false, 0, nullptr});
    it->second.spec = &it->first;
    return it->second;
  }

  // Whether a new block of this plan runs on the interpreter first (or always).
  bool interprets(const KernelPlan& plan) const {
    if (options_.interpreter == cpu::InterpreterMode::NONE) return false;
    if (options_.interpreter == cpu::InterpreterMode::FIRST &&
        (!background_ || plan.extent(plan.ndim - 1) < cpu::InterpretedKernel::kMinRow))
      return false;
    return cpu::interpretable(plan);
  }

  // An interpreted block into the memory cache, its step kernels linked; its own kernel goes to
  // the background compiler (unless it is interpreted always).
  Kept& keep_interpreted(const KernelPlan& plan, std::unique_ptr<cpu::InterpretedKernel> interp) {
    std::vector<const CompiledKernel*> steps;
    for (const KernelPlan& step : interp->step_plans()) steps.push_back(&memory_.at(step.spec).fns);
    interp->link(std::move(steps));
    auto [it, added] = memory_.emplace(plan.spec, Kept{});
    Kept& k = it->second;
    k.spec = &it->first;
    k.interp = std::move(interp);
    const bool always = options_.interpreter == cpu::InterpreterMode::ALWAYS;
    k.fast = !always;
    k.boosted = always; // nothing to hurry
    if (!always) background_->submit(plan.spec, plan);
    return k;
  }

  bool background_idle() { return !background_ || background_->idle(); }

  // One optimized compile of the smallest kernel (a 1-element copy), on this thread: LLVM's
  // code generator creates its lazily made statics (see background_compiler.h). ~2 ms, once.
  void warm_up() {
    BasePtr base = make_base("warm_up", DType::FLOAT64, 1);
    Program p;
    p.instrs.emplace_back(Opcode::IDENTITY,
                          std::vector<Operand>{View::whole(base), Scalar::of_float(1.0)});
    KernelBlock block{&p, {0}, {}};
    KernelPlan plan;
    plan_block(block, plan, /*bind_data=*/false);
    jit_.warm_up(plan);
  }

  // The optimized machine code the background compiler finished replaces the fast code in the
  // memory cache; the blocks' kept states point at the cache's entries, so every block runs it
  // from now on.
  void install_optimized() {
    for (cpu::BackgroundCompiler::Finished& f : background_->take_finished()) {
      auto it = memory_.find(f.spec);
      if (it == memory_.end()) continue;
      it->second.fns = f.result.fns;
      it->second.fast = false;
      if (options_.interpreter != cpu::InterpreterMode::ALWAYS) it->second.interp.reset();
      ++stats_.kernels_optimized;
      stats_.background_compile_seconds += f.result.seconds;
      note_compile(f.result);
      if (f.result.outcome == CompileOutcome::LOADED_FROM_DISK) ++stats_.disk_cache_hits;
    }
  }

  CpuOptions options_;
  const cpu::Blas* blas_ = nullptr;
  int threads_;
  JitCompiler jit_;
  std::unordered_map<std::string, Kept> memory_; // by plan spec
  Kept transient_;
  std::vector<double> scratch_; // partial results of split reductions
  std::unordered_map<const void*, cpu::ParallelChoice> choices_; // by kernel function
  // New kernels prepare() found, for end_prepare(): the first slot of each spec, and the
  // slots of the flush waiting for one of them (with its index in pending_).
  std::vector<CpuPlan::Block*> pending_;
  std::vector<std::pair<CpuPlan::Block*, size_t>> waiting_;
  std::unordered_map<std::string, size_t> pending_index_;
  EngineStats stats_;
  bool compiled_since_flush_ = false; // the JIT ran (compile or load) in this flush
  // Tiered compilation (null without): declared last, so it stops before the JIT goes.
  std::unique_ptr<cpu::BackgroundCompiler> background_;
};
} // namespace
} // namespace cpu

std::unique_ptr<Engine> make_cpu_engine(const CpuOptions& options) {
  return std::make_unique<cpu::CpuEngine>(options);
}

} // namespace hassium
