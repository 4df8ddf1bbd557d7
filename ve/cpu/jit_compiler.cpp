// JitCompiler: LLJIT for the host CPU (detectHost), the new PassBuilder's O3 pipeline with the
// libmvec vector math library in TargetLibraryInfo, target-cpu/target-features on every kernel
// function (or the vectorizer plans for SSE2), and an ObjectCache on disk.
#include "ve/cpu/jit_compiler.h"

#include <algorithm>
#include <mutex>

#include <llvm/Analysis/TargetLibraryInfo.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/ExecutionEngine/Orc/CompileUtils.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/Passes/PassBuilder.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <xxhash.h>

#include "core/error.h"
#include "ve/cpu/codegen.h"
#include "ve/cpu/object_cache.h"
#include "ve/cpu/object_file.h"
#include "ve/cpu/runtime_helpers.h"
#include "ve/cpu/vector_math.h"

namespace hassium::cpu {

namespace {
using Clock = std::chrono::steady_clock;

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

llvm::OptimizationLevel pass_level(int opt) {
  switch (opt) {
  case 0:
    return llvm::OptimizationLevel::O0;
  case 1:
    return llvm::OptimizationLevel::O1;
  case 2:
    return llvm::OptimizationLevel::O2;
  default:
    return llvm::OptimizationLevel::O3;
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
// Compiles each module with one of two target machines: the configured code generator, or the
// fast one for a module flagged kFastCodegen (a huge kernel).
constexpr const char* kFastCodegen = "hassium.fast_codegen";
class TieredCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
public:
  TieredCompiler(std::unique_ptr<llvm::TargetMachine> full,
                 std::unique_ptr<llvm::TargetMachine> fast, llvm::ObjectCache* cache)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(full->Options)),
        full_(std::move(full)), fast_(std::move(fast)), cache_(cache) {}
  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override {
    llvm::orc::SimpleCompiler compile(m.getModuleFlag(kFastCodegen) ? *fast_ : *full_, cache_);
    return compile(m);
  }

private:
  std::unique_ptr<llvm::TargetMachine> full_, fast_;
  llvm::ObjectCache* cache_;
};

size_t instruction_count(const llvm::Module& m) {
  size_t n = 0;
  for (const llvm::Function& f : m) n += f.getInstructionCount();
  return n;
}

} // namespace

struct JitCompiler::Impl {
  int opt_level = 3;
  int64_t large_kernel = 0;
  bool transient = false;
  std::unique_ptr<llvm::TargetMachine> tm; // for the optimizer's cost model
  std::unique_ptr<DiskObjectCache> disk;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  std::unordered_map<std::string, CompiledKernel> loaded; // by key
  llvm::orc::ResourceTrackerSP last_tracker;
  uint64_t transient_counter = 0;
  std::string cpu, features, triple;
  VectorIsa isa;

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

  // The optimization level of the module; a huge one (see jit_compiler.h) gets the cheaper
  // tier and the flag that sends it to the fast code generator (TieredCompiler).
  int tier(llvm::Module& m) const {
    if (large_kernel <= 0 || int64_t(instruction_count(m)) <= large_kernel) return opt_level;
    m.addModuleFlag(llvm::Module::Warning, kFastCodegen, 1);
    return std::min(opt_level, 1);
  }

  void optimize(llvm::Module& m, int level) {
    llvm::LoopAnalysisManager lam;
    llvm::FunctionAnalysisManager fam;
    llvm::CGSCCAnalysisManager cgam;
    llvm::ModuleAnalysisManager mam;
    llvm::PipelineTuningOptions pto;
    pto.LoopVectorization = level >= 2;
    pto.SLPVectorization = level >= 2;
    llvm::PassBuilder pb(tm.get(), pto);
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
    llvm::ModulePassManager mpm = level == 0
                                      ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                      : pb.buildPerModuleDefaultPipeline(pass_level(level));
    mpm.run(m, mam);
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
  auto jtmb = unwrap(llvm::orc::JITTargetMachineBuilder::detectHost(), "detecting the host CPU");
  jtmb.setCodeGenOptLevel(codegen_level(I.opt_level));
  I.cpu = cpu_ = jtmb.getCPU();
  I.features = features_ = jtmb.getFeatures().getString();
  I.triple = jtmb.getTargetTriple().str();
  I.isa = vector_isa(I.features);
  I.tm = unwrap(jtmb.createTargetMachine(), "creating the target machine");
  if (!disk_dir.empty()) I.disk = std::make_unique<DiskObjectCache>(disk_dir);
  DiskObjectCache* cache = I.disk.get();
  I.jit = unwrap(
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(jtmb)
          .setCompileFunctionCreator(
              [cache](llvm::orc::JITTargetMachineBuilder b)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
                auto tm = b.createTargetMachine();
                if (!tm) return tm.takeError();
                b.setCodeGenOptLevel(llvm::CodeGenOpt::None);
                auto fast = b.createTargetMachine();
                if (!fast) return fast.takeError();
                return std::make_unique<TieredCompiler>(std::move(*tm), std::move(*fast), cache);
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

CompileResult JitCompiler::compile(const KernelPlan& plan) {
  Impl& I = *impl_;
  auto t0 = Clock::now();
  auto ctx = std::make_unique<llvm::LLVMContext>();
  auto m = I.module_for(plan, *ctx);

  const int level = I.tier(*m);

  // The key: everything the machine code depends on (the module flag included).
  std::string text;
  {
    llvm::raw_string_ostream os(text);
    m->print(os, nullptr);
    os << "|cpu=" << I.cpu << "|features=" << I.features << "|llvm=" << LLVM_VERSION_STRING
       << "|opt=" << level << "|cache=" << object_file::kMagic;
  }
  CompileResult r;
  r.key = hex128(XXH3_128bits(text.data(), text.size()));
  if (!I.transient) {
    auto it = I.loaded.find(r.key);
    if (it != I.loaded.end()) {
      r.fns = it->second;
      r.outcome = CompileOutcome::ALREADY_LOADED;
      r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
      return r;
    }
  }
  std::string name = "hs_" + r.key;
  if (I.transient) name += "_t" + std::to_string(I.transient_counter++);
  m->setModuleIdentifier(name);
  m->getFunction(kKernelName)->setName(name + "_kernel");
  if (llvm::Function* c = m->getFunction(kCombineName)) c->setName(name + "_combine");

  // Found on disk: the ObjectCache hands the object to the compiler, the IR is not optimized.
  bool from_disk = I.disk && !I.transient && I.disk->prefetch(name);
  if (!from_disk) I.optimize(*m, level);
  llvm::orc::ResourceTrackerSP tracker = I.jit->getMainJITDylib().createResourceTracker();
  check(I.jit->addIRModule(tracker, llvm::orc::ThreadSafeModule(std::move(m), std::move(ctx))),
        "adding a kernel");
  r.fns.kernel = unwrap(I.jit->lookup(name + "_kernel"), "looking up a kernel").toPtr<KernelFn>();
  if (plan.has_reduction)
    r.fns.combine =
        unwrap(I.jit->lookup(name + "_combine"), "looking up a combine step").toPtr<CombineFn>();
  r.outcome = from_disk ? CompileOutcome::LOADED_FROM_DISK : CompileOutcome::COMPILED;
  if (I.transient)
    I.last_tracker = tracker;
  else
    I.loaded.emplace(r.key, r.fns);
  r.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return r;
}

void JitCompiler::release() {
  Impl& I = *impl_;
  if (!I.last_tracker) return;
  check(I.last_tracker->remove(), "unloading a kernel");
  I.last_tracker = nullptr;
}

std::string JitCompiler::ir_text(const KernelPlan& plan, bool optimized) {
  llvm::LLVMContext ctx;
  auto m = impl_->module_for(plan, ctx);
  const int level = impl_->tier(*m);
  if (optimized) impl_->optimize(*m, level);
  std::string s;
  llvm::raw_string_ostream os(s);
  m->print(os, nullptr);
  return os.str();
}

std::string JitCompiler::asm_text(const KernelPlan& plan) {
  llvm::LLVMContext ctx;
  auto m = impl_->module_for(plan, ctx);
  impl_->optimize(*m, impl_->tier(*m));
  llvm::SmallString<0> buf;
  llvm::raw_svector_ostream os(buf);
  llvm::legacy::PassManager pm;
  HS_INTERNAL_ASSERT(!impl_->tm->addPassesToEmitFile(pm, os, nullptr, llvm::CGFT_AssemblyFile))
      << "the target cannot emit assembly";
  pm.run(*m);
  return std::string(buf.str());
}

} // namespace hassium::cpu
