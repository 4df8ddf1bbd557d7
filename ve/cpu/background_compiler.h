// BackgroundCompiler: threads that compile kernels with the optimizing code generator while
// their fast-tier machine code runs; the engine installs each result at its next block (tiered
// compilation, [cpu] tiered_compile). Two lanes: the idle lane (SCHED_IDLE: on the cores the
// kernels and the frontend leave idle) takes every kernel in order; the hot lane (normal
// priority) takes the kernels the engine found hot (their fast code already ran for a while:
// waiting for an idle core would cost more than sharing a busy one).
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "ve/cpu/jit_compiler.h"
#include "ve/cpu/plan.h"

namespace hassium::cpu {

class BackgroundCompiler {
public:
  // A finished compile: the memory-cache key (plan spec) it is for, and the result.
  struct Finished {
    std::string spec;
    CompileResult result;
  };

  // `on_drained` runs on the thread each time the queue empties after work (the engine drops
  // the compiler's pages there); may be empty. `warm_up` runs once on the engine's thread before
  // the thread starts: one small compile by the optimizing code generator, so that the static
  // objects LLVM creates on first use exist before the exit handler that stops the thread is
  // registered (exit() destroys statics in reverse order of creation; one created later would
  // be destroyed under a compile still running).
  // `finish_at_exit`: what is still queued when the process exits is compiled by a detached
  // child process ([cpu] optimize_at_exit), which writes it to the disk cache (useless
  // without one); else it is dropped.
  BackgroundCompiler(JitCompiler& jit, std::function<void()> on_drained,
                     std::function<void()> warm_up, bool finish_at_exit = false);
  // stop().
  ~BackgroundCompiler();
  // Drops what is queued and waits for the compile in progress (LLVM cannot stop one); nothing
  // is compiled after it in this process. Also runs at process exit (at_exit: the queue goes
  // to a detached child when finish_at_exit).
  void stop(bool at_exit = false);
  BackgroundCompiler(const BackgroundCompiler&) = delete;
  BackgroundCompiler& operator=(const BackgroundCompiler&) = delete;

  // Queues the plan's kernel for the optimizing code generator, on the idle lane. The plan is
  // copied without its per-call values (the code generator reads only the structure). The
  // lane's thread starts at the first submit.
  void submit(const std::string& spec, const KernelPlan& plan);
  // Moves the kernel to the hot lane when it still waits on the idle lane (no-op otherwise:
  // compiling or done). The hot lane's thread starts at the first boost.
  void boost(const std::string& spec);
  // Whether results wait to be taken (one atomic load: the engine asks before every block).
  bool has_finished() const { return finished_count_.load(std::memory_order_acquire) > 0; }
  // The results finished since the last call, in completion order.
  std::vector<Finished> take_finished();
  // Blocks until nothing is queued or compiling (tests and benchmarks: the optimized tier).
  void wait_idle();
  // Nothing queued or compiling.
  bool idle();

  // Counters: compiles that failed (an internal error: the fast tier stays), total seconds.
  int64_t errors() const { return errors_.load(); }

private:
  using Job = std::pair<std::string, KernelPlan>;
  void run(bool hot);
  void start_exit_handling(); // once, before the first thread (see the constructor)

  JitCompiler& jit_;
  std::function<void()> on_drained_, warm_up_;
  bool finish_at_exit_ = false;
  std::mutex mu_;
  std::condition_variable wake_, idle_cv_;
  std::deque<Job> queue_, hot_queue_;
  std::vector<Finished> finished_;
  std::atomic<int64_t> finished_count_{0};
  std::atomic<int64_t> errors_{0};
  int busy_ = 0; // compiles in progress
  bool stop_ = false;
  bool exit_handling_ = false;
  std::mutex join_mu_; // one joiner at a time (the destructor and the exit handler)
  std::thread thread_, hot_thread_;
};

} // namespace hassium::cpu
