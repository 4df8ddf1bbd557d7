// Tests for core/runtime: recording, flushing through a backend, filters, errors, counters.
#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

#include "core/error.h"
#include "core/profile.h"
#include "core/runtime.h"

using namespace hassium;

namespace {
// Remembers what it was asked to run; throws UserError when a program holds a NEGATIVE.
struct FakeBackend : Backend {
  std::vector<std::vector<Opcode>>* seen;
  explicit FakeBackend(std::vector<std::vector<Opcode>>* seen) : seen(seen) {}
  std::string_view name() const override { return "fake"; }
  void execute(const Program& p) override {
    std::vector<Opcode> ops;
    for (const auto& ins : p.instrs) ops.push_back(ins.op);
    seen->push_back(ops);
    for (const auto& ins : p.instrs)
      if (ins.op == Opcode::NEGATIVE) HS_USER_ERROR() << "bad data";
  }
  void add_counters(ProfileCounters& c) const override { c.blocks += 7; }
};

Instruction add(const BasePtr& a) {
  return Instruction(Opcode::ADD, {View::whole(a), View::whole(a), Scalar::of_float(1)});
}
Instruction neg(const BasePtr& a) {
  return Instruction(Opcode::NEGATIVE, {View::whole(a), View::whole(a)});
}

Stack fake_stack(std::vector<std::vector<Opcode>>* seen) {
  Stack s;
  s.backend = std::make_unique<FakeBackend>(seen);
  return s;
}
} // namespace

TEST_CASE("flush hands the pending program to the backend, once") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto a = make_base("a", DType::FLOAT64, 4);
  CHECK(rt.record(add(a)) == 1); // the pending count with it
  CHECK(rt.record(add(a)) == 2);
  CHECK(rt.pending_size() == 2);
  rt.flush();
  CHECK(rt.pending_size() == 0);
  rt.flush(); // nothing pending: the backend is not called
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<Opcode>{Opcode::ADD, Opcode::ADD});
  auto c = rt.counters();
  CHECK(c.flushes == 1);
  CHECK(c.instructions == 2);
  CHECK(c.blocks == 7); // from the backend
}

TEST_CASE("operand storage of executed instructions is handed out again and empty") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto a = make_base("a", DType::FLOAT64, 4);
  std::vector<Operand> fresh = rt.operand_storage(3); // nothing spare yet: a new vector
  CHECK(fresh.empty());
  CHECK(fresh.capacity() >= 3);
  Instruction ins = add(a);
  const Operand* storage = ins.operands.data();
  const size_t capacity = ins.operands.capacity();
  rt.record(std::move(ins));
  rt.record(Instruction(Opcode::IDENTITY, {View::whole(a), View::whole(a)}));
  rt.flush();
  CHECK(a.use_count() == 1); // the executed instructions hold no views any more
  std::vector<Operand> reused = rt.operand_storage(capacity);
  CHECK(reused.empty());
  CHECK(reused.data() == storage);
  CHECK(rt.operand_storage(capacity).data() != storage); // handed out once
  CHECK(rt.operand_storage(100).capacity() >= 100);      // larger than any spare: a new vector
}

TEST_CASE("sync records a SYNC of the whole base and flushes") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto a = make_base("a", DType::INT32, 3);
  rt.record(Instruction(Opcode::RANGE, {View::whole(a)}));
  rt.sync(a);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<Opcode>{Opcode::RANGE, Opcode::SYNC});
}

TEST_CASE("flush without a stack is an error that keeps the pending program") {
  Runtime rt;
  auto a = make_base("a", DType::FLOAT64, 4);
  rt.record(add(a));
  CHECK_THROWS_WITH(rt.flush(), Catch::Contains("install_stack"));
  CHECK(rt.pending_size() == 1);
  std::vector<std::vector<Opcode>> seen;
  rt.install(fake_stack(&seen)); // no old backend: the pending program stays for the new one
  CHECK(seen.empty());
  rt.flush();
  CHECK(seen.size() == 1);
}

TEST_CASE("install flushes what is pending through the old backend") {
  std::vector<std::vector<Opcode>> old_seen, new_seen;
  Runtime rt;
  rt.install(fake_stack(&old_seen));
  auto a = make_base("a", DType::FLOAT64, 4);
  rt.record(add(a));
  rt.install(fake_stack(&new_seen));
  CHECK(old_seen.size() == 1);
  CHECK(new_seen.empty());
  CHECK(rt.pending_size() == 0);
}

TEST_CASE("an error during a flush drops the program and leaves the runtime usable") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto a = make_base("a", DType::FLOAT64, 4);
  rt.record(add(a));
  rt.record(neg(a));
  CHECK_THROWS_AS(rt.flush(), UserError);
  CHECK(rt.pending_size() == 0);
  rt.record(add(a));
  rt.flush();
  REQUIRE(seen.size() == 2);
  CHECK(seen[1] == std::vector<Opcode>{Opcode::ADD});
  CHECK(rt.counters().flushes == 2);
}

TEST_CASE("filters run in order before the backend") {
  std::vector<std::vector<Opcode>> seen;
  std::vector<std::string> order;
  Runtime rt;
  Stack s = fake_stack(&seen);
  auto b = make_base("b", DType::FLOAT64, 1);
  s.filters.push_back({"first", [&](Program p) {
                         order.push_back("first");
                         p.instrs.push_back(add(b));
                         return p;
                       }});
  s.filters.push_back({"second", [&](Program p) {
                         order.push_back("second");
                         CHECK(p.bases.empty()); // the runtime lists none (a pass per filter)
                         p.collect_bases();      // a filter that needs the list makes it
                         CHECK(p.find_base("b") != nullptr);
                         p.instrs.erase(p.instrs.begin());
                         return p;
                       }});
  rt.install(std::move(s));
  auto a = make_base("a", DType::FLOAT64, 4);
  rt.record(Instruction(Opcode::SYNC, {View::whole(a)}));
  rt.flush();
  CHECK(order == std::vector<std::string>{"first", "second"});
  REQUIRE(seen.size() == 1);
  CHECK(seen[0] == std::vector<Opcode>{Opcode::ADD});
}

TEST_CASE("a flush longer than the stack's piece size runs as pieces, each filtered") {
  std::vector<std::vector<Opcode>> seen;
  int filtered = 0;
  Runtime rt;
  Stack s = fake_stack(&seen);
  s.piece_size = 3;
  s.filters.push_back({"count", [&](Program p) {
                         ++filtered;
                         CHECK(p.size() <= 3);
                         return p;
                       }});
  rt.install(std::move(s));
  auto a = make_base("a", DType::FLOAT64, 4);
  std::vector<Opcode> recorded;
  for (int i = 0; i < 8; ++i) {
    Instruction ins =
        i % 3 == 1 ? Instruction(Opcode::IDENTITY, {View::whole(a), View::whole(a)}) : add(a);
    recorded.push_back(ins.op);
    rt.record(std::move(ins));
  }
  rt.flush();
  REQUIRE(seen.size() >= 3); // at most 3 each
  std::vector<Opcode> all;
  for (const auto& piece : seen) {
    CHECK(!piece.empty());
    CHECK(piece.size() <= 3);
    all.insert(all.end(), piece.begin(), piece.end());
  }
  CHECK(all == recorded); // in order, each once
  CHECK(filtered == int(seen.size()));
  CHECK(rt.counters().flushes == 1); // one flush of the frontend's
  CHECK(rt.counters().instructions == 8);
  CHECK(a.use_count() == 1); // every piece's instructions dropped
  // Three instructions: one piece.
  seen.clear();
  for (int i = 0; i < 3; ++i) rt.record(add(a));
  rt.flush();
  CHECK(seen.size() == 1);
}

TEST_CASE("an error in one piece drops the rest of the flush and leaves the runtime usable") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  Stack s = fake_stack(&seen);
  s.piece_size = 2;
  rt.install(std::move(s));
  auto a = make_base("a", DType::FLOAT64, 4);
  for (int i = 0; i < 7; ++i) rt.record(i == 3 ? neg(a) : add(a)); // the second piece throws
  CHECK_THROWS_AS(rt.flush(), UserError);
  CHECK(seen.size() == 2); // the first piece ran, the one with the NEGATIVE threw, no more
  CHECK(rt.pending_size() == 0);
  CHECK(a.use_count() == 1);
  rt.record(add(a));
  rt.flush();
  REQUIRE(seen.size() == 3);
  CHECK(seen[2] == std::vector<Opcode>{Opcode::ADD});
}

TEST_CASE("the stack's check sees each recorded instruction with its position") {
  std::vector<std::vector<Opcode>> seen;
  std::vector<size_t> positions;
  Runtime rt;
  Stack s = fake_stack(&seen);
  s.check = [&](const Instruction& ins, size_t index) {
    positions.push_back(index);
    if (ins.op == Opcode::NEGATIVE) HS_USER_ERROR() << "rejected";
  };
  rt.install(std::move(s));
  auto a = make_base("a", DType::FLOAT64, 4);
  rt.record(add(a));
  CHECK_THROWS_WITH(rt.record(neg(a)), "rejected");
  rt.record(add(a));
  CHECK(positions == std::vector<size_t>{0, 1, 1});
  CHECK(rt.pending_size() == 2); // the rejected one was not recorded
}

TEST_CASE("writes_pending: a recorded write until a flush that ran it ends") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto a = make_base("a", DType::FLOAT64, 4), b = make_base("b", DType::FLOAT64, 4);
  CHECK_FALSE(rt.writes_pending(*a));
  rt.record(Instruction(Opcode::IDENTITY, {View::whole(a), View::whole(b)})); // b only read
  CHECK(rt.writes_pending(*a));
  CHECK_FALSE(rt.writes_pending(*b));
  rt.flush();
  CHECK_FALSE(rt.writes_pending(*a));
  // A flush that fails leaves its writes pending (their values are unspecified) until a later
  // flush succeeds.
  rt.record(neg(a));
  CHECK_THROWS_AS(rt.flush(), UserError);
  CHECK(rt.writes_pending(*a));
  CHECK(rt.uses_pending(*a));
  CHECK(rt.idle()); // nothing recorded, nothing running
  rt.record(add(b));
  rt.flush();
  CHECK_FALSE(rt.writes_pending(*a));
  CHECK_FALSE(rt.writes_pending(*b));
}

TEST_CASE("writes_pending(view): only views a pending write overlaps, runs of moving writes") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto m = make_base("m", DType::FLOAT64, 6 * 40), x = make_base("x", DType::FLOAT64, 6);
  auto column = [&](int64_t j) { return View{m, j, {6}, {40}}; };
  auto element = [&](int64_t i, int64_t j) { return View{m, i * 40 + j, {}, {}}; };
  const View x_row{x, 0, {1, 1}, {0, 0}};
  CHECK_FALSE(rt.writes_pending(column(0)));
  // a loop writing columns 0, 1, ..., 29: one run, more writes than entries are kept
  for (int64_t j = 0; j < 30; ++j)
    rt.record(Instruction(Opcode::IDENTITY, {column(j), View::whole(x)}));
  CHECK(m->pending_writes.size() == 1);
  CHECK_FALSE(m->untracked_writes);
  CHECK(rt.writes_pending(*m));
  CHECK(rt.writes_pending(column(29)));
  CHECK(rt.writes_pending(element(5, 17)));
  CHECK_FALSE(rt.writes_pending(column(30)));
  CHECK_FALSE(rt.writes_pending(element(2, 35)));
  CHECK(rt.writes_pending(View{m, 0, {6, 40}, {40, 1}})); // the whole matrix
  CHECK_FALSE(rt.writes_pending(View::whole(x)));
  // past kTrackedWrites writes that form no run (row 5's head, longer each time), any view of
  // the base counts as written
  for (int64_t k = 0; k + 1 < int64_t(Base::kTrackedWrites); ++k) // (the run is one entry)
    rt.record(Instruction(Opcode::IDENTITY, {View{m, 5 * 40 + 20, {1, k + 1}, {40, 1}}, x_row}));
  CHECK_FALSE(m->untracked_writes);
  CHECK_FALSE(rt.writes_pending(element(0, 39)));
  rt.record(Instruction(Opcode::IDENTITY, {View{m, 5 * 40 + 20, {1, 20}, {40, 1}}, x_row}));
  CHECK(m->untracked_writes);
  CHECK(rt.writes_pending(element(0, 39)));
  rt.flush();
  CHECK_FALSE(rt.writes_pending(column(3)));
  // the next write starts a fresh list
  rt.record(Instruction(Opcode::IDENTITY, {column(3), View::whole(x)}));
  CHECK_FALSE(m->untracked_writes);
  CHECK(rt.writes_pending(column(3)));
  CHECK_FALSE(rt.writes_pending(column(4)));
  rt.flush();
}

TEST_CASE("writes_pending: a FREE writes nothing, not even on foreign memory") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  static double memory[4];
  auto wrap = [](const char* name) {
    auto base = make_base(name, DType::FLOAT64, 4);
    base->data = memory;
    base->external_owner = std::shared_ptr<void>(memory, [](void*) {});
    return base;
  };
  auto other = wrap("other");
  // A loop that wraps NumPy results and drops them records a FREE of each: none of them is a
  // write another base on that memory (or the base itself) must wait for.
  for (int k = 0; k < 100; ++k) {
    auto dropped = wrap("dropped");
    rt.record(Instruction(Opcode::FREE, {View::whole(dropped)}));
    CHECK_FALSE(rt.writes_pending(*dropped));
  }
  CHECK_FALSE(rt.writes_pending(*other));
  CHECK_FALSE(rt.writes_pending(View::whole(other)));
  rt.record(add(other)); // a compute write is one
  CHECK(rt.writes_pending(*other));
  rt.flush();
  CHECK_FALSE(rt.writes_pending(*other));
}

TEST_CASE("uses_pending: a recorded read or write of the base until its flush ends") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  auto a = make_base("a", DType::FLOAT64, 4), b = make_base("b", DType::FLOAT64, 4);
  CHECK_FALSE(rt.uses_pending(*a));
  rt.record(Instruction(Opcode::IDENTITY, {View::whole(a), View::whole(b)}));
  CHECK(rt.uses_pending(*a));
  CHECK(rt.uses_pending(*b)); // read: a direct store into b would change what it reads
  CHECK_FALSE(rt.writes_pending(*b));
  rt.flush();
  CHECK_FALSE(rt.uses_pending(*a));
  CHECK_FALSE(rt.uses_pending(*b));
}

TEST_CASE("uses_pending: shared foreign memory waits for anything pending, private memory for "
          "its own uses") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  static double shared_memory[4], private_memory[4];
  auto wrap = [](const char* name, double* data, bool exported) {
    auto base = make_base(name, DType::FLOAT64, 4);
    base->data = data;
    base->external_owner = std::shared_ptr<void>(data, [](void*) {});
    base->host_exported = exported;
    return base;
  };
  auto shared = wrap("shared", shared_memory, true), own = wrap("own", private_memory, false);
  auto other = make_base("other", DType::FLOAT64, 4);
  rt.record(add(other));
  CHECK(rt.uses_pending(*shared)); // another base may wrap its memory
  CHECK_FALSE(rt.uses_pending(*own));
  rt.record(Instruction(Opcode::IDENTITY, {View::whole(other), View::whole(own)}));
  CHECK(rt.uses_pending(*own));
  rt.flush();
  CHECK_FALSE(rt.uses_pending(*shared));
  CHECK_FALSE(rt.uses_pending(*own));
}

TEST_CASE("writes_pending: a write to foreign memory is pending for every base on that memory") {
  std::vector<std::vector<Opcode>> seen;
  Runtime rt;
  rt.install(fake_stack(&seen));
  static double memory[8];
  auto wrap = [](const char* name, double* data, int64_t n) {
    auto base = make_base(name, DType::FLOAT64, n);
    base->data = data;
    base->external_owner = std::shared_ptr<void>(data, [](void*) {});
    return base;
  };
  auto whole = wrap("whole", memory, 8), head = wrap("head", memory, 4),
       tail = wrap("tail", memory + 4, 4), own = make_base("own", DType::FLOAT64, 8);
  own->data = memory; // not foreign: the runtime's own bases never share memory
  rt.record(add(head));
  CHECK(rt.writes_pending(*head));
  CHECK(rt.writes_pending(*whole)); // overlaps head
  CHECK_FALSE(rt.writes_pending(*tail));
  CHECK_FALSE(rt.writes_pending(*own));
  rt.flush();
  CHECK_FALSE(rt.writes_pending(*whole));
  CHECK_FALSE(rt.writes_pending(*head));
  own->data = nullptr;
}

namespace {
// Calls exit() from a thread it waits for, as a compile helper or an OpenMP worker would on a
// fatal error of a library: the exit hook then runs while the flush holds the execution lock.
struct ExitingBackend : Backend {
  std::string_view name() const override { return "exiting"; }
  void execute(const Program&) override {
    std::thread helper([] { std::exit(3); });
    helper.join();
  }
  void add_counters(ProfileCounters&) const override {}
};
} // namespace

TEST_CASE("exit() from a thread a flush waits for ends the process: the exit hook gives up") {
  pid_t pid = ::fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    Runtime& rt = Runtime::instance(); // the one with the exit hook
    Stack s;
    s.backend = std::make_unique<ExitingBackend>();
    rt.install(std::move(s));
    rt.record(add(make_base("a", DType::FLOAT64, 4)));
    rt.flush();
    std::_Exit(0); // not reached
  }
  int status = 0;
  pid_t done = 0;
  auto until = std::chrono::steady_clock::now() + std::chrono::seconds(40);
  while ((done = ::waitpid(pid, &status, WNOHANG)) == 0 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (done == 0) {
    ::kill(pid, SIGKILL);
    ::waitpid(pid, &status, 0);
    FAIL("the process hung in its exit hook");
  }
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 3);
}
