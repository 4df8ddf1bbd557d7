// JitCompiler: LLJIT for the host CPU (detectHost), hassium's kernel pipeline (a short list of
// LLVM passes that vectorizes the loop nest with libmvec in TargetLibraryInfo), target-cpu/
// target-features on every kernel function (or the vectorizer plans for SSE2), two code
// generators (fast and optimizing), and an ObjectCache on disk.
#include "ve/cpu/jit_compiler.h"

#include <algorithm>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>
#include <vector>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Linker/Linker.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/Transforms/InstCombine/InstCombine.h>
#include <llvm/Transforms/Scalar/EarlyCSE.h>
#include <llvm/Transforms/Scalar/LICM.h>
#include <llvm/Transforms/Scalar/LoopPassManager.h>
#include <llvm/Transforms/Scalar/LoopRotation.h>
#include <llvm/Transforms/Scalar/LoopUnrollPass.h>
#include <llvm/Transforms/Scalar/SROA.h>
#include <llvm/Transforms/Scalar/SimplifyCFG.h>
#include <llvm/Transforms/Utils/InjectTLIMappings.h>
#include <llvm/Transforms/Vectorize/LoopVectorize.h>
#include <xxhash.h>

#include "core/error.h"
#include "ve/cpu/codegen.h"
#include "ve/cpu/llvm_errors.h"
#include "ve/cpu/object_cache.h"
#include "ve/cpu/object_file.h"
#include "ve/cpu/runtime_helpers.h"
#include "ve/cpu/source_hash.h"
#include "ve/cpu/vector_math.h"

namespace hassium::cpu {

namespace {
using Clock = std::chrono::steady_clock;

// Operations and arrays per parallel group of a fast batch: a batch smaller than this compiles
// in one module on the engine's thread (a thread costs more than it saves).
constexpr size_t kParallelBatchSize = 40;

// The kernel pipeline's version: part of every cache key, so a change of the pipeline (or of
// what a tier means) never loads objects the previous one compiled. (A change of hassium's code
// generator changes kCodegenSourceHash.)
constexpr int kPipelineVersion = 3;

// LLVM's errors become InternalErrors at this boundary (a kernel that does not compile is a bug).
template <typename T> T unwrap(llvm::Expected<T> value, const char* what) {
  if (!value) HS_INTERNAL_ASSERT(false) << what << ": " << llvm::toString(value.takeError());
  return std::move(*value);
}
void check(llvm::Error err, const char* what) {
  if (err) HS_INTERNAL_ASSERT(false) << what << ": " << llvm::toString(std::move(err));
}

void init_llvm() {
  static std::once_flag once;
  std::call_once(once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    install_llvm_fatal_error_handler();
  });
}

llvm::CodeGenOpt::Level codegen_level(int opt) {
  switch (opt) {
  case 0:
    return llvm::CodeGenOpt::None;
  case 1:
    return llvm::CodeGenOpt::Less;
  case 2:
    return llvm::CodeGenOpt::Default;
  default:
    return llvm::CodeGenOpt::Aggressive;
  }
}

std::string hex128(XXH128_hash_t h) {
  static const char* digits = "0123456789abcdef";
  std::string s(32, '0');
  for (int i = 0; i < 16; ++i) {
    s[size_t(15 - i)] = digits[(h.high64 >> (4 * i)) & 15];
    s[size_t(31 - i)] = digits[(h.low64 >> (4 * i)) & 15];
  }
  return s;
}

// Compiles each module with a target machine of one of two code generators: the optimizing
// one, or the fast one for a module flagged kFastCodegen. A TargetMachine is not thread-safe:
// each is used by one compile at a time, taken from a pool (compiles run on the engine's
// thread, the helpers of a parallel batch and the background threads at once).
constexpr const char* kFastCodegen = "hassium.fast_codegen";
constexpr const char* kNotCached = "hassium.not_cached"; // the disk cache does not see it
class TieredCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  TieredCompiler(llvm::orc::JITTargetMachineBuilder full, std::unique_ptr<llvm::TargetMachine> tm,
                 llvm::ObjectCache* cache)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(tm->Options)), full_(full),
        fast_(full), cache_(cache) {
    fast_.setCodeGenOptLevel(llvm::CodeGenOpt::None);
    spare_full_.push_back(std::move(tm));
  }
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override {
    const bool fast = m.getModuleFlag(kFastCodegen) != nullptr;
    auto& spare = fast ? spare_fast_ : spare_full_;
    std::unique_ptr<llvm::TargetMachine> tm;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!spare.empty()) {
        tm = std::move(spare.back());
        spare.pop_back();
      }
    }
    if (!tm) {
      auto made = (fast ? fast_ : full_).createTargetMachine();
      if (!made) return made.takeError();
      tm = std::move(*made);
    }
    llvm::orc::SimpleCompiler compile(*tm, m.getModuleFlag(kNotCached) ? nullptr : cache_);
    auto object = compile(m);
    {
      std::lock_guard<std::mutex> lock(mu_);
      spare.push_back(std::move(tm));
    }
    // The code generator's errors (kept by the context: llvm_errors.h) fail the compile.
    std::string errors = take_llvm_errors(m.getContext());
    if (!errors.empty())
      return llvm::make_error<llvm::StringError>("code generation of " + m.getModuleIdentifier() +
                                                     ": " + errors,
                                                 llvm::inconvertibleErrorCode());
    return object;
  }

private:
  llvm::orc::JITTargetMachineBuilder full_, fast_;
  std::mutex mu_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> spare_full_, spare_fast_;
  llvm::ObjectCache* cache_;
};

size_t instruction_count(const llvm::Module& m) {
  size_t n = 0;
  for (const llvm::Function& f : m) n += f.getInstructionCount();
  return n;
}

// The kernel pipeline: promote the generated code's stack slots to registers, simplify, put
// the loop nest in the form the vectorizer wants (rotated, invariants hoisted; the generated
// loops' induction variables are canonical already: IndVarSimplify cost a third of the
// pipeline's time and changed nothing the vectorizer needs), map math calls to libmvec's vector
// variants, vectorize (and interleave) the loops, clean up. A fraction of O3's passes: O3's
// inliner, GVN, unrolling and repeated simplification passes change little in these loops (kernels
// ran within ~10% of O3's), at a third of its optimization time.
llvm::ModulePassManager kernel_pipeline() {
  llvm::LoopPassManager loops;
  loops.addPass(llvm::LoopRotatePass());
  loops.addPass(llvm::LICMPass(llvm::LICMOptions()));
  llvm::FunctionPassManager f;
  f.addPass(llvm::SROAPass(llvm::SROAOptions::ModifyCFG));
  f.addPass(llvm::EarlyCSEPass(false));
  f.addPass(llvm::InstCombinePass());
  f.addPass(llvm::SimplifyCFGPass());
  f.addPass(llvm::createFunctionToLoopPassAdaptor(std::move(loops), /*UseMemorySSA=*/true));
  f.addPass(llvm::InjectTLIMappings());
  f.addPass(llvm::LoopVectorizePass(llvm::LoopVectorizeOptions()));
  f.addPass(llvm::InstCombinePass());
  f.addPass(llvm::SimplifyCFGPass());
  // A reduction's lane loop (codegen.cpp, a group of lanes) is now a vector loop of a
  // constant few iterations: unrolled whole, its lanes' stack slots become vector registers.
  f.addPass(llvm::LoopUnrollPass(llvm::LoopUnrollOptions(3, false, false)
                                     .setPartial(false)
                                     .setRuntime(false)
                                     .setUpperBound(false)
                                     .setPeeling(false)
                                     .setProfileBasedPeeling(false)));
  f.addPass(llvm::SROAPass(llvm::SROAOptions::PreserveCFG));
  f.addPass(llvm::InstCombinePass());
  llvm::ModulePassManager m;
  m.addPass(llvm::createModuleToFunctionPassAdaptor(std::move(f)));
  return m;
}

} // namespace

struct JitCompiler::Impl {
  int opt_level = 3;
  int64_t large_kernel = 0;
  bool transient = false;
  llvm::orc::JITTargetMachineBuilder jtmb{llvm::Triple()};
  std::unique_ptr<DiskObjectCache> disk;
  std::unique_ptr<DiskObjectCache> library; // read only (add_library)
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::string cpu, features, triple;
  VectorIsa isa;

  std::mutex mu; // guards what follows (compile() runs on two threads)
  struct Loaded {
    CompiledKernel fns;
    bool final = true; // no better code will come (CompileResult::final)
  };
  std::unordered_map<std::string, Loaded> loaded; // by key
  llvm::orc::ResourceTrackerSP last_tracker;
  uint64_t transient_counter = 0;
  // Target machines for the optimizer's cost model, one per concurrent compile.
  std::vector<std::unique_ptr<llvm::TargetMachine>> spare_tms;

  std::unique_ptr<llvm::TargetMachine> take_tm() {
    {
      std::lock_guard<std::mutex> lock(mu);
      if (!spare_tms.empty()) {
        auto tm = std::move(spare_tms.back());
        spare_tms.pop_back();
        return tm;
      }
    }
    return unwrap(jtmb.createTargetMachine(), "creating a target machine");
  }
  void give_tm(std::unique_ptr<llvm::TargetMachine> tm) {
    std::lock_guard<std::mutex> lock(mu);
    spare_tms.push_back(std::move(tm));
  }

  // A fresh module for the plan: data layout, triple and target attributes set, named as
  // generated (kKernelName, kCombineName).
  std::unique_ptr<llvm::Module> module_for(const KernelPlan& plan, llvm::LLVMContext& ctx) {
    auto m = generate_module(plan, ctx);
    m->setDataLayout(jit->getDataLayout());
    m->setTargetTriple(triple);
    for (llvm::Function& f : *m) {
      if (f.isDeclaration()) continue;
      f.addFnAttr("target-cpu", cpu);
      f.addFnAttr("target-features", features);
      // With AVX-512, let the vectorizer use its full width: math-heavy loops (exp, sin, ...)
      // run about 1.5x faster with libmvec's 8-wide variants; memory-bound loops do not care.
      if (isa.avx512) f.addFnAttr("prefer-vector-width", "512");
    }
    return m;
  }

  // Whether a module may get the optimizing code generator.
  bool optimizable(const llvm::Module& m) const {
    return opt_level > 0 && (large_kernel <= 0 || int64_t(instruction_count(m)) <= large_kernel);
  }

  void optimize(llvm::Module& m) {
    if (opt_level == 0) return;
    std::unique_ptr<llvm::TargetMachine> tm = take_tm();
    {
      llvm::LoopAnalysisManager lam;
      llvm::FunctionAnalysisManager fam;
      llvm::CGSCCAnalysisManager cgam;
      llvm::ModuleAnalysisManager mam;
      llvm::PassBuilder pb(tm.get());
      llvm::Triple tt(triple);
      llvm::TargetLibraryInfoImpl tlii(tt);
      tlii.addVectorizableFunctionsFromVecLib(llvm::TargetLibraryInfoImpl::LIBMVEC_X86, tt);
      tlii.addVectorizableFunctions(libmvec_extra_mappings(isa));
      fam.registerPass([&] { return llvm::TargetLibraryAnalysis(tlii); });
      pb.registerModuleAnalyses(mam);
      pb.registerCGSCCAnalyses(cgam);
      pb.registerFunctionAnalyses(fam);
      pb.registerLoopAnalyses(lam);
      pb.crossRegisterProxies(lam, fam, cgam, mam);
      kernel_pipeline().run(m, mam);
    }
    give_tm(std::move(tm));
  }

  // The cache key of a module at a tier: the text prefix (IR and host) plus the code generator.
  std::string key_of(const std::string& prefix, Tier tier) const {
    std::string text = prefix;
    text += "|codegen=";
    text += tier == Tier::FAST ? "fast" : std::to_string(opt_level);
    return hex128(XXH3_128bits(text.data(), text.size()));
  }
};

JitCompiler::JitCompiler(int opt_level, const std::string& disk_dir, bool transient,
                         int64_t large_kernel)
    : impl_(std::make_unique<Impl>()) {
  init_llvm();
  Impl& I = *impl_;
  I.opt_level = opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level;
  I.large_kernel = large_kernel;
  I.transient = transient;
  I.jtmb = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
  I.jtmb.setCodeGenOptLevel(codegen_level(I.opt_level));
  I.cpu = cpu_ = I.jtmb.getCPU();
  I.features = features_ = I.jtmb.getFeatures().getString();
  I.triple = I.jtmb.getTargetTriple().str();
  I.isa = vector_isa(I.features);
  if (!disk_dir.empty()) I.disk = std::make_unique<DiskObjectCache>(disk_dir);
  DiskObjectCache* cache = I.disk.get();
  I.jit =
      unwrap(llvm::orc::LLJITBuilder()
                 .setJITTargetMachineBuilder(I.jtmb)
                 .setCompileFunctionCreator(
                     [cache](llvm::orc::JITTargetMachineBuilder b)
                         -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                       auto tm = b.createTargetMachine();
                       if (!tm) return tm.takeError();
                       return std::make_unique<TieredCompiler>(b, std::move(*tm), cache);
                     })
                 .create(),
             "creating the JIT");
  // Symbols kernels call: the C math library, libmvec's vector variants, hassium's helpers.
  llvm::orc::JITDylib& jd = I.jit->getMainJITDylib();
  char prefix = I.jit->getDataLayout().getGlobalPrefix();
  jd.addGenerator(unwrap(llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix),
                         "process symbols"));
  auto mvec = llvm::orc::DynamicLibrarySearchGenerator::Load("libmvec.so.1", prefix);
  HS_INTERNAL_ASSERT(bool(mvec)) << "cannot load libmvec.so.1: "
                                 << llvm::toString(mvec.takeError());
  jd.addGenerator(std::move(*mvec));
  llvm::orc::SymbolMap helpers;
  for (const HelperSymbol& h : runtime_helpers())
    helpers[I.jit->mangleAndIntern(h.name)] = llvm::JITEvaluatedSymbol::fromPointer(
        h.address, llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable);
  check(jd.define(llvm::orc::absoluteSymbols(std::move(helpers))), "defining the runtime helpers");
}

JitCompiler::~JitCompiler() = default;

const DiskObjectCache* JitCompiler::disk_cache() const {
  return impl_->disk.get();
}

// The key text of a kernel, before the code generator's part: its structure (the plan's spec,
// what the generated code is made from), the host, and the versions of everything between.
std::string JitCompiler::key_prefix(const KernelPlan& plan) const {
  const Impl& I = *impl_;
  HS_INTERNAL_ASSERT(!plan.spec.empty()) << "a kernel plan without its spec";
  std::string text = plan.spec;
  text += "|cpu=" + I.cpu + "|features=" + I.features + "|llvm=" LLVM_VERSION_STRING;
  text += "|pipeline=" + std::to_string(kPipelineVersion) + "|source=" + kCodegenSourceHash;
  text += "|ir=" + std::to_string(I.opt_level > 0) + "|cache=" + std::string(object_file::kMagic);
  return text;
}

// The kernel's machine code when it is at hand: loaded in this process at an acceptable tier
// (optimized first), or final code in the disk cache (optimized; or fast, stored only for a
// kernel past large_kernel), loaded from there. No IR is generated for either.
bool JitCompiler::find_existing(const KernelPlan& plan, const std::string& prefix, Tier tier,
                                CompileResult& r) {
  Impl& I = *impl_;
  if (I.transient) return false;
  auto done = [&](Tier t, bool final, CompileOutcome outcome) {
    r.tier = t;
    r.final = final;
    r.outcome = outcome;
    return true;
  };
  for (Tier t : {Tier::OPTIMIZED, Tier::FAST}) {
    r.key = I.key_of(prefix, t);
    std::lock_guard<std::mutex> lock(I.mu);
    auto it = I.loaded.find(r.key);
    if (it == I.loaded.end() || (t == Tier::FAST && tier == Tier::OPTIMIZED && !it->second.final))
      continue;
    r.fns = it->second.fns;
    return done(t, it->second.final, CompileOutcome::ALREADY_LOADED);
  }
  for (DiskObjectCache* dir : {I.disk.get(), I.library.get()}) {
    if (!dir) continue;
    for (Tier t : {Tier::OPTIMIZED, Tier::FAST}) {
      r.key = I.key_of(prefix, t);
      std::unique_ptr<llvm::MemoryBuffer> object = dir->load("hs_" + r.key);
      if (!object) continue;
      llvm::orc::ResourceTrackerSP tracker = I.jit->getMainJITDylib().createResourceTracker();
      check(I.jit->addObjectFile(tracker, std::move(object)), "adding a cached kernel");
      r.fns = look_up({"hs_" + r.key}, {plan.has_reduction})[0];
      std::lock_guard<std::mutex> lock(I.mu);
      I.loaded.emplace(r.key, Impl::Loaded{r.fns, true});
      return done(t, true, CompileOutcome::LOADED_FROM_DISK);
    }
  }
  return false;
}

void JitCompiler::add_library(const std::string& dir) {
  std::error_code ec;
  if (dir.empty() || !std::filesystem::is_directory(dir, ec)) return;
  impl_->library = std::make_unique<DiskObjectCache>(dir);
}

bool JitCompiler::find(const KernelPlan& plan, CompileResult& r) {
  auto t0 = Clock::now();
  if (!find_existing(plan, key_prefix(plan), Tier::FAST, r)) return false;
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return true;
}

// Looks up the kernels (and combine steps) named name + "_kernel" (+ "_combine").
std::vector<CompiledKernel> JitCompiler::look_up(const std::vector<std::string>& names,
                                                 const std::vector<bool>& reductions) {
  Impl& I = *impl_;
  std::vector<CompiledKernel> fns(names.size());
  for (size_t i = 0; i < names.size(); ++i) {
    fns[i].kernel =
        unwrap(I.jit->lookup(names[i] + "_kernel"), "looking up a kernel").toPtr<KernelFn>();
    if (reductions[i])
      fns[i].combine = unwrap(I.jit->lookup(names[i] + "_combine"), "looking up a combine step")
                           .toPtr<CombineFn>();
  }
  return fns;
}

// Adds a module to the JIT (compiled at the first lookup) and looks up its kernels.
std::vector<CompiledKernel> JitCompiler::add_and_look_up(std::unique_ptr<llvm::Module> m,
                                                         std::unique_ptr<llvm::LLVMContext> ctx,
                                                         const std::vector<std::string>& names,
                                                         const std::vector<bool>& reductions) {
  Impl& I = *impl_;
  llvm::orc::ResourceTrackerSP tracker = I.jit->getMainJITDylib().createResourceTracker();
  check(I.jit->addIRModule(tracker, llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))),
        "adding a kernel");
  std::vector<CompiledKernel> fns = look_up(names, reductions);
  if (I.transient) {
    std::lock_guard<std::mutex> lock(I.mu);
    I.last_tracker = tracker;
  }
  return fns;
}

CompileResult JitCompiler::compile(const KernelPlan& plan, Tier tier) {
  Impl& I = *impl_;
  auto t0 = Clock::now();
  const std::string prefix = key_prefix(plan);
  CompileResult r;
  if (!find_existing(plan, prefix, tier, r)) {
    auto ctx = new_llvm_context();
    std::unique_ptr<llvm::Module> module = I.module_for(plan, *ctx);
    const bool optimizable = I.optimizable(*module);
    const Tier t = tier == Tier::OPTIMIZED && optimizable ? Tier::OPTIMIZED : Tier::FAST;
    r.key = I.key_of(prefix, t);
    r.tier = t;
    r.final = t == Tier::OPTIMIZED || !optimizable;
    r.outcome = CompileOutcome::COMPILED;
    std::string name = "hs_" + r.key;
    if (I.transient) {
      std::lock_guard<std::mutex> lock(I.mu);
      name += "_t" + std::to_string(I.transient_counter++);
    }
    llvm::Module& m = *module;
    m.setModuleIdentifier(name);
    m.getFunction(kKernelName)->setName(name + "_kernel");
    if (llvm::Function* c = m.getFunction(kCombineName)) c->setName(name + "_combine");
    if (t == Tier::FAST) m.addModuleFlag(llvm::Module::Warning, kFastCodegen, 1);
    if (!r.final) m.addModuleFlag(llvm::Module::Warning, kNotCached, 1);
    I.optimize(m);
    r.fns = add_and_look_up(std::move(module), std::move(ctx), {name}, {plan.has_reduction})[0];
    if (!I.transient) {
      std::lock_guard<std::mutex> lock(I.mu);
      I.loaded.emplace(r.key, Impl::Loaded{r.fns, r.final});
    }
  }
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

std::vector<CompileResult> JitCompiler::compile_fast(const std::vector<const KernelPlan*>& plans) {
  Impl& I = *impl_;
  HS_INTERNAL_ASSERT(!I.transient) << "compile_fast in transient mode";
  auto t0 = Clock::now();
  std::vector<CompileResult> results(plans.size());
  // The kernels to compile (one per distinct key), each with its size.
  struct Job {
    size_t plan;
    std::string name;
    size_t size;
  };
  std::vector<Job> jobs;
  std::vector<size_t> compiled; // the plans the batch serves (repeats included)
  for (size_t i = 0; i < plans.size(); ++i) {
    const std::string prefix = key_prefix(*plans[i]);
    if (find_existing(*plans[i], prefix, Tier::FAST, results[i])) continue;
    CompileResult& r = results[i];
    r.key = I.key_of(prefix, Tier::FAST);
    r.tier = Tier::FAST;
    r.outcome = CompileOutcome::COMPILED;
    compiled.push_back(i);
    const std::string name = "hs_" + r.key;
    bool repeat = false;
    for (const Job& j : jobs) repeat = repeat || j.name == name;
    if (!repeat) jobs.push_back({i, name, plans[i]->instrs.size() + plans[i]->arrays.size()});
  }
  if (jobs.empty()) return results;

  // Groups compiled in parallel, one module each: the flush waits for them, and the cores the
  // kernels will use are idle meanwhile. Largest kernels first, each to the lightest group.
  size_t total = 0;
  for (const Job& j : jobs) total += j.size;
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t groups = std::min({jobs.size(), cores, size_t(4), 1 + total / kParallelBatchSize});
  std::sort(jobs.begin(), jobs.end(), [](const Job& a, const Job& b) { return a.size > b.size; });
  std::vector<std::vector<const Job*>> members(groups);
  std::vector<size_t> load(groups, 0);
  for (const Job& j : jobs) {
    size_t g = size_t(std::min_element(load.begin(), load.end()) - load.begin());
    members[g].push_back(&j);
    load[g] += j.size;
  }
  // A kernel past large_kernel is final at the fast tier: compiled alone, and kept on disk.
  std::vector<size_t> final_alone;
  std::mutex final_mu;
  auto compile_group = [&](const std::vector<const Job*>& group) {
    auto ctx = new_llvm_context();
    std::unique_ptr<llvm::Module> module;
    std::vector<std::string> names;
    std::vector<bool> reductions;
    for (const Job* j : group) {
      std::unique_ptr<llvm::Module> m = I.module_for(*plans[j->plan], *ctx);
      if (!I.optimizable(*m)) {
        std::lock_guard<std::mutex> lock(final_mu);
        final_alone.push_back(j->plan);
        continue;
      }
      m->getFunction(kKernelName)->setName(j->name + "_kernel");
      if (llvm::Function* c = m->getFunction(kCombineName)) c->setName(j->name + "_combine");
      names.push_back(j->name);
      reductions.push_back(plans[j->plan]->has_reduction);
      if (!module)
        module = std::move(m);
      else
        HS_INTERNAL_ASSERT(!llvm::Linker::linkModules(*module, std::move(m)))
            << "linking a kernel into its batch: " << take_llvm_errors(*ctx);
    }
    if (!module) return;
    {
      std::lock_guard<std::mutex> lock(I.mu);
      module->setModuleIdentifier("hs_batch_" + std::to_string(I.transient_counter++));
    }
    module->addModuleFlag(llvm::Module::Warning, kFastCodegen, 1);
    module->addModuleFlag(llvm::Module::Warning, kNotCached, 1);
    I.optimize(*module);
    std::vector<CompiledKernel> fns =
        add_and_look_up(std::move(module), std::move(ctx), names, reductions);
    std::lock_guard<std::mutex> lock(I.mu);
    for (size_t n = 0; n < names.size(); ++n)
      I.loaded.emplace(names[n].substr(3), Impl::Loaded{fns[n], false});
  };
  std::vector<std::thread> helpers;
  std::vector<std::exception_ptr> errors(groups);
  for (size_t g = 1; g < groups; ++g)
    helpers.emplace_back([&, g] {
      try {
        compile_group(members[g]);
      } catch (...) {
        errors[g] = std::current_exception();
      }
    });
  try {
    compile_group(members[0]);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : helpers) t.join();
  for (std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (size_t i : final_alone) results[i] = compile(*plans[i], Tier::FAST);
  {
    std::lock_guard<std::mutex> lock(I.mu);
    for (size_t i : compiled) {
      auto it = I.loaded.find(results[i].key); // (a final kernel's: compile() kept it)
      results[i].fns = it->second.fns;
      results[i].final = it->second.final;
    }
  }
  // The batch's time, shared evenly by the kernels it compiled (loads keep their own).
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  for (CompileResult& r : results) r.seconds = seconds / double(results.size());
  return results;
}

void JitCompiler::release() {
  Impl& I = *impl_;
  llvm::orc::ResourceTrackerSP tracker;
  {
    std::lock_guard<std::mutex> lock(I.mu);
    tracker = std::move(I.last_tracker);
  }
  if (tracker) check(tracker->remove(), "unloading a kernel");
}

void JitCompiler::warm_up(const KernelPlan& plan) {
  Impl& I = *impl_;
  auto ctx = new_llvm_context();
  auto m = I.module_for(plan, *ctx);
  std::string name;
  {
    std::lock_guard<std::mutex> lock(I.mu);
    name = "hs_warm_up_" + std::to_string(I.transient_counter++);
  }
  m->setModuleIdentifier(name);
  m->getFunction(kKernelName)->setName(name + "_kernel");
  m->addModuleFlag(llvm::Module::Warning, kNotCached, 1);
  I.optimize(*m);
  llvm::orc::ResourceTrackerSP tracker = I.jit->getMainJITDylib().createResourceTracker();
  check(I.jit->addIRModule(tracker, llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))),
        "adding a kernel");
  unwrap(I.jit->lookup(name + "_kernel"), "looking up a kernel");
  check(tracker->remove(), "unloading a kernel");
}

std::string JitCompiler::ir_text(const KernelPlan& plan, bool optimized) {
  auto ctx = new_llvm_context();
  auto m = impl_->module_for(plan, *ctx);
  if (optimized) impl_->optimize(*m);
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, nullptr);
  return os.str();
}

std::string JitCompiler::asm_text(const KernelPlan& plan, Tier tier) {
  Impl& I = *impl_;
  auto ctx = new_llvm_context();
  auto m = I.module_for(plan, *ctx);
  if (!I.optimizable(*m)) tier = Tier::FAST;
  I.optimize(*m);
  llvm::orc::JITTargetMachineBuilder b = I.jtmb;
  if (tier == Tier::FAST) b.setCodeGenOptLevel(llvm::CodeGenOpt::None);
  auto tm = unwrap(b.createTargetMachine(), "creating a target machine");
  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  HS_INTERNAL_ASSERT(!tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile))
      << "the target cannot emit assembly";
  pm.run(*m);
  return std::string(buf.str());
}

} // namespace hassium::cpu
