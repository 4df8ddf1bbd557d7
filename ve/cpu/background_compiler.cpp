// BackgroundCompiler: a queue of plans, one SCHED_IDLE thread compiling them at the OPTIMIZED
// tier, a list of finished results the engine takes on its own thread.
#include "ve/cpu/background_compiler.h"

#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <unordered_set>

namespace hassium::cpu {

namespace {
// The lowest priority Linux has: the thread runs only on a core nothing else wants. Where
// SCHED_IDLE is refused, the highest nice value.
void lower_own_priority() {
  sched_param p{};
  if (pthread_setschedparam(pthread_self(), SCHED_IDLE, &p) != 0)
    (void)setpriority(PRIO_PROCESS, 0, 19); // (per thread on Linux: its own thread id)
}
// The compilers with a running thread. At process exit their threads stop before LLVM's own
// static objects are destroyed (a compile running through exit() crashed in the code
// generator, reading a function-local static set exit() had destroyed): the exit handler is
// registered when the first thread starts, after a warm-up compile made LLVM create those
// statics, so it runs before their destructors.
std::mutex g_live_mu;
std::unordered_set<BackgroundCompiler*>& live() {
  static auto* set = new std::unordered_set<BackgroundCompiler*>; // never destroyed
  return *set;
}
void stop_all_at_exit() {
  std::vector<BackgroundCompiler*> all;
  {
    std::lock_guard<std::mutex> lock(g_live_mu);
    all.assign(live().begin(), live().end());
  }
  for (BackgroundCompiler* c : all) c->stop(/*at_exit=*/true);
}

// In the detached child: no terminal, no pipes of the parent's (whoever reads the parent's
// output must see it end when the parent does), the lowest priority.
void detach_child() {
  int null = ::open("/dev/null", O_RDWR);
  if (null >= 0) {
    for (int fd = 0; fd < 3; ++fd) ::dup2(null, fd);
    if (null > 2) ::close(null);
  }
  ::close_range(3, ~0U, 0);
  ::setsid();
  sched_param p{};
  if (sched_setscheduler(0, SCHED_IDLE, &p) != 0) (void)setpriority(PRIO_PROCESS, 0, 19);
}
} // namespace

BackgroundCompiler::BackgroundCompiler(JitCompiler& jit, std::function<void()> on_drained,
                                       std::function<void()> warm_up, bool finish_at_exit)
    : jit_(jit), on_drained_(std::move(on_drained)), warm_up_(std::move(warm_up)),
      finish_at_exit_(finish_at_exit) {}

BackgroundCompiler::~BackgroundCompiler() {
  stop();
  std::lock_guard<std::mutex> lock(g_live_mu);
  live().erase(this);
}

void BackgroundCompiler::stop(bool at_exit) {
  std::deque<Job> rest;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    rest.swap(hot_queue_);
    for (Job& j : queue_) rest.push_back(std::move(j));
    queue_.clear();
  }
  wake_.notify_all();
  {
    std::lock_guard<std::mutex> join_lock(join_mu_);
    if (thread_.joinable()) thread_.join();
    if (hot_thread_.joinable()) hot_thread_.join();
  }
  // What is left compiles in a child process, so that the next run of the program finds it
  // optimized on disk; the parent does not wait. The threads are joined: no lock of LLVM's or
  // ours is held across the fork, and the child has one thread.
  if (!at_exit || !finish_at_exit_ || rest.empty()) return;
  std::fflush(nullptr); // (the child never flushes the parent's buffered output)
  const pid_t pid = ::fork();
  if (pid != 0) return; // the parent (or a failed fork: nothing is finished)
  detach_child();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (auto& [spec, plan] : rest) {
    if (std::chrono::steady_clock::now() > deadline) break;
    try {
      jit_.compile(plan, Tier::OPTIMIZED); // (written to the disk cache)
    } catch (...) {
      break;
    }
  }
  ::_exit(0);
}

void BackgroundCompiler::start_exit_handling() {
  if (exit_handling_) return;
  exit_handling_ = true;
  if (warm_up_) warm_up_();
  std::atexit(stop_all_at_exit); // (again per compiler: after its own warm-up)
  std::lock_guard<std::mutex> live_lock(g_live_mu);
  live().insert(this);
}

void BackgroundCompiler::submit(const std::string& spec, const KernelPlan& plan) {
  KernelPlan copy;
  copy.ndim = plan.ndim;
  copy.axis = plan.axis;
  copy.split = plan.split;
  copy.has_scan = plan.has_scan;
  copy.has_reduction = plan.has_reduction;
  copy.writes_flat = plan.writes_flat;
  copy.position_inner = plan.position_inner;
  copy.position_param = plan.position_param;
  copy.arrays = plan.arrays;
  for (PlanArray& a : copy.arrays) a.view = nullptr; // the block's views are gone by then
  copy.constants = plan.constants;
  copy.instrs = plan.instrs;
  copy.spec = plan.spec; // (the cache key is made from it)
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    queue_.emplace_back(spec, std::move(copy));
    if (!thread_.joinable()) {
      start_exit_handling();
      thread_ = std::thread([this] { run(false); });
    }
  }
  wake_.notify_all();
}

void BackgroundCompiler::boost(const std::string& spec) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (stop_) return;
    auto it =
        std::find_if(queue_.begin(), queue_.end(), [&](const Job& j) { return j.first == spec; });
    if (it == queue_.end()) return;
    hot_queue_.push_back(std::move(*it));
    queue_.erase(it);
    if (!hot_thread_.joinable()) {
      start_exit_handling();
      hot_thread_ = std::thread([this] { run(true); });
    }
  }
  wake_.notify_all();
}

std::vector<BackgroundCompiler::Finished> BackgroundCompiler::take_finished() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Finished> out;
  out.swap(finished_);
  finished_count_.store(0, std::memory_order_release);
  return out;
}

void BackgroundCompiler::wait_idle() {
  std::unique_lock<std::mutex> lock(mu_);
  idle_cv_.wait(lock,
                [this] { return (queue_.empty() && hot_queue_.empty() && busy_ == 0) || stop_; });
}

bool BackgroundCompiler::idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.empty() && hot_queue_.empty() && busy_ == 0;
}

void BackgroundCompiler::run(bool hot) {
  if (!hot) lower_own_priority();
  std::deque<Job>& mine = hot ? hot_queue_ : queue_;
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    wake_.wait(lock, [&] { return stop_ || !mine.empty(); });
    if (stop_) break;
    auto [spec, plan] = std::move(mine.front());
    mine.pop_front();
    ++busy_;
    lock.unlock();
    bool ok = true;
    CompileResult r;
    try {
      r = jit_.compile(plan, Tier::OPTIMIZED);
    } catch (const std::exception& e) {
      // A bug in the optimizing code generator's path: the kernel keeps its fast machine code.
      ok = false;
      ++errors_;
      std::fprintf(stderr,
                   "hassium: warning: background compile failed (%s); the kernel keeps "
                   "its fast-tier code\n",
                   e.what());
    }
    lock.lock();
    if (ok) {
      finished_.push_back({std::move(spec), std::move(r)});
      finished_count_.store(int64_t(finished_.size()), std::memory_order_release);
    }
    --busy_;
    const bool drained = queue_.empty() && hot_queue_.empty() && busy_ == 0 && !stop_;
    if (drained) idle_cv_.notify_all();
    if (drained && on_drained_) {
      lock.unlock();
      on_drained_();
      lock.lock();
    }
  }
  idle_cv_.notify_all();
}

} // namespace hassium::cpu
