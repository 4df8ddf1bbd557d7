// Tests for core/runtime's locking rules: foreign code released by a flush runs after its locks
// (it may record and flush again), and threads record and flush concurrently.
#include <catch2/catch.hpp>

#include <atomic>
#include <chrono>
#include <thread>

#include "core/error.h"
#include "core/release_bin.h"
#include "core/runtime.h"

using namespace hassium;

namespace {
// Runs FREE (releasing the base's memory as a VEM does) and ADD (adds the constant to element 0
// of a float64 base with memory). `seen` counts the instructions run, `running` is set while a
// program executes, `delay` slows each program down.
struct MemoryBackend : Backend {
  std::atomic<int64_t> seen{0};
  std::atomic<bool> running{false};
  std::chrono::microseconds delay{0};
  std::string_view name() const override { return "memory"; }
  void execute(const Program& p) override {
    running = true;
    if (delay.count()) std::this_thread::sleep_for(delay);
    for (const auto& ins : p.instrs) {
      ++seen;
      if (ins.op == Opcode::FREE) ins.out().base->release_memory();
      if (ins.op == Opcode::ADD && ins.out().base->data)
        static_cast<double*>(ins.out().base->data)[0] += ins.constant(2).re;
    }
    running = false;
  }
  void add_counters(ProfileCounters&) const override {}
};

// A base over memory that a "frontend" owns: releasing the owner calls `on_release`.
BasePtr foreign_base(std::string name, std::function<void()> on_release, double* memory) {
  auto b = make_base(std::move(name), DType::FLOAT64, 1);
  b->data = memory;
  b->external_owner = std::shared_ptr<void>(memory, [f = std::move(on_release)](void*) { f(); });
  return b;
}

Instruction add(const BasePtr& a, double c) {
  return Instruction(Opcode::ADD, {View::whole(a), View::whole(a), Scalar::of_float(c)});
}
} // namespace

TEST_CASE("an owner released by FREE inside a flush may record and flush (no self-deadlock)") {
  Runtime rt;
  auto owned = std::make_unique<MemoryBackend>();
  MemoryBackend& backend = *owned;
  Stack s;
  s.backend = std::move(owned);
  rt.install(std::move(s));
  double memory = 0, other_memory = 0;
  auto other = make_base("other", DType::FLOAT64, 1);
  other->data = &other_memory;
  bool released = false;
  // The stack: FREE of a base borrowed from a frontend drops the frontend's object,
  // whose finalizer records a FREE of another base (and here also flushes it).
  auto b = foreign_base(
      "b",
      [&] {
        released = true;
        CHECK(rt.idle()); // the flush that released it has finished
        rt.record(add(other, 5));
        rt.flush();
      },
      &memory);
  rt.record(add(b, 1));
  rt.record(Instruction(Opcode::FREE, {View::whole(b)}));
  b.reset(); // the program holds the last reference
  rt.flush();
  CHECK(released);
  CHECK(memory == 1);
  CHECK(other_memory == 5); // the finalizer's flush ran
  CHECK(backend.seen == 3);
}

TEST_CASE("a base that dies with the flushed program releases its owner after the flush") {
  Runtime rt;
  Stack s;
  s.backend = std::make_unique<MemoryBackend>();
  rt.install(std::move(s));
  double memory = 0;
  bool released = false;
  auto b = foreign_base(
      "b",
      [&] {
        released = true;
        CHECK(rt.idle());
        rt.record(add(make_base("c", DType::FLOAT64, 1), 1)); // recording works here
      },
      &memory);
  rt.record(add(b, 2));
  b.reset();
  rt.flush();
  CHECK(released);
  CHECK(memory == 2);
  CHECK(rt.pending_size() == 1);
}

TEST_CASE("a release bin holds owners until it ends, bins nest") {
  int released = 0;
  auto owner = [&] { return std::shared_ptr<void>(&released, [&](void*) { ++released; }); };
  {
    ReleaseBin outer;
    auto a = owner();
    ReleaseBin::release(a);
    CHECK(!a);
    {
      ReleaseBin inner;
      auto b = owner();
      ReleaseBin::release(b);
      CHECK(inner.size() == 1);
      CHECK(outer.size() == 1);
    }
    CHECK(released == 1); // the inner bin's
  }
  CHECK(released == 2);
  auto c = owner();
  ReleaseBin::release(c); // no bin: right away
  CHECK(released == 3);
}

TEST_CASE("recording never waits for a running flush, idle() only when all has run") {
  Runtime rt;
  auto owned = std::make_unique<MemoryBackend>();
  MemoryBackend& backend = *owned;
  backend.delay = std::chrono::milliseconds(200);
  Stack s;
  s.backend = std::move(owned);
  rt.install(std::move(s));
  double memory = 0;
  auto a = make_base("a", DType::FLOAT64, 1);
  a->data = &memory;
  rt.record(add(a, 1));
  std::thread flusher([&] { rt.flush(); });
  while (!backend.running) std::this_thread::yield();
  CHECK(rt.pending_size() == 0);
  CHECK(!rt.idle()); // taken out, not finished
  auto t0 = std::chrono::steady_clock::now();
  rt.record(add(a, 10)); // goes to the next program
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::milliseconds(100));
  CHECK(rt.pending_size() == 1);
  flusher.join();
  CHECK(memory == 1);
  backend.delay = {};
  rt.flush();
  CHECK(memory == 11);
  CHECK(rt.idle());
}

TEST_CASE("threads record and flush concurrently: every instruction runs once, in order") {
  Runtime rt;
  auto owned = std::make_unique<MemoryBackend>();
  MemoryBackend& backend = *owned;
  Stack s;
  s.backend = std::move(owned);
  rt.install(std::move(s));
  constexpr int kThreads = 4, kAdds = 2000;
  std::vector<double> memory(kThreads, 0.0);
  std::atomic<int> stale_reads{0}; // Catch2's CHECK is not for other threads
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      auto b = make_base("b" + std::to_string(t), DType::FLOAT64, 1);
      b->data = &memory[size_t(t)];
      for (int i = 0; i < kAdds; ++i) {
        rt.record(add(b, 1));
        if (i % 97 == 0) rt.flush();
        if (i % 301 == 0) {
          rt.sync(b); // afterwards this thread's adds so far have run
          if (memory[size_t(t)] != i + 1) ++stale_reads;
        }
      }
    });
  for (auto& t : threads) t.join();
  CHECK(stale_reads == 0);
  rt.flush();
  for (double m : memory) CHECK(m == kAdds);
  CHECK(backend.seen >= kThreads * kAdds);
}
