// Tests of bridge/cxx/session.cpp: the bytecode the C++ API records (FREE at the last
// reference, the temporary copy of an overlapping input, SYNC only when needed), the flush
// threshold, and that errors leave nothing broken. A spy backend sees every flushed program.
#include <map>
#include <mutex>

#include "core/runtime.h"
#include "helpers.h"
#include "vem/stack.h"

using namespace hassium;

namespace {
// Records each program it is handed, then runs it on the configured stack.
class SpyBackend : public Backend {
public:
  explicit SpyBackend(std::unique_ptr<Backend> inner) : inner_(std::move(inner)) {}
  std::string_view name() const override { return "spy"; }
  void execute(const Program& program) override {
    programs.push_back(program);
    inner_->execute(program);
  }
  void add_counters(ProfileCounters& c) const override { inner_->add_counters(c); }
  std::vector<Program> programs;

private:
  std::unique_ptr<Backend> inner_;
};

SpyBackend& spy() {
  static SpyBackend* s = [] {
    // The configured stack without filters, so that the programs are exactly what was recorded.
    StackOptions options = StackOptions::from_config(*Config::global());
    options.filters.clear();
    Stack stack = build_stack(options);
    auto backend = std::make_unique<SpyBackend>(std::move(stack.backend));
    SpyBackend* raw = backend.get();
    stack.backend = std::move(backend);
    Runtime::instance().install(std::move(stack));
    return raw;
  }();
  return s->programs.clear(), *s;
}

// All instructions flushed since spy() was called, in order.
std::vector<Instruction> flushed(const SpyBackend& s) {
  std::vector<Instruction> all;
  for (const Program& p : s.programs) all.insert(all.end(), p.instrs.begin(), p.instrs.end());
  return all;
}

int count(const std::vector<Instruction>& v, Opcode op) {
  int n = 0;
  for (const Instruction& i : v) n += i.op == op;
  return n;
}
} // namespace

TEST_CASE("FREE is recorded when the last array of a base dies", "[cxx][session]") {
  SpyBackend& s = spy();
  {
    array<double> a = ones<double>({100});
    array<double> view = a(slice(10, 20));
    { array<double> alias = a; } // not the last reference: no FREE
    flush();
    CHECK(count(flushed(s), Opcode::FREE) == 0);
    a = zeros<double>({3}); // rebinding: `view` still holds the first base
    flush();
    CHECK(count(flushed(s), Opcode::FREE) == 0);
    view *= 2.0;
  } // both bases die
  flush();
  std::vector<Instruction> all = flushed(s);
  CHECK(count(all, Opcode::FREE) == 2);
  // Each FREE comes after every other use of its base.
  for (size_t i = 0; i < all.size(); ++i) {
    if (all[i].op != Opcode::FREE) continue;
    const Base* b = all[i].out().base.get();
    for (size_t j = i + 1; j < all.size(); ++j)
      for (const auto& opnd : all[j].operands)
        if (auto* v = std::get_if<View>(&opnd)) CHECK(v->base.get() != b);
  }
  // An array that no instruction ever named costs nothing, not even a FREE.
  s.programs.clear();
  { array<double> unused = empty<double>({1000}); }
  flush();
  CHECK(s.programs.empty());
}

TEST_CASE("an expression's temporaries are freed in the same flush (contractible)",
          "[cxx][session]") {
  SpyBackend& s = spy();
  array<double> x = random({1000}, 1);
  array<double> y = sin(x) * 2.0 + x * x - 1.0;
  flush();
  std::vector<Instruction> all = flushed(s);
  int computed = 0;
  for (const Instruction& i : all) computed += !i.is_system();
  // RANDOM, RIGHT_SHIFT, IDENTITY, MULTIPLY (random); SIN, MULTIPLY, MULTIPLY, ADD, SUBTRACT.
  CHECK(computed == 9);
  // The temporaries (the random bits, sin x, 2 sin x, x x, 2 sin x + x x) are FREEd.
  CHECK(count(all, Opcode::FREE) == 5);
}

TEST_CASE("an overlapping input is copied into a temporary first", "[cxx][session]") {
  SpyBackend& s = spy();
  array<int32_t> a = arange<int32_t>(10);
  flush();
  s.programs.clear();
  a(slice(1, _)) = a(slice(_, -1));
  flush();
  std::vector<Instruction> all = flushed(s);
  REQUIRE(count(all, Opcode::IDENTITY) == 2);
  const Instruction& first = all[0];
  REQUIRE(first.op == Opcode::IDENTITY);
  CHECK(first.out().base != first.view(1).base); // copy a[:-1] into a fresh base
  const Instruction& second = all[1];
  CHECK(second.out().base == first.view(1).base); // ... then a[1:] = the copy
  CHECK(second.view(1).base == first.out().base);
  hstest::check_values(a, {0, 0, 1, 2, 3, 4, 5, 6, 7, 8});
  // An identical input needs no copy.
  s.programs.clear();
  a += a;
  flush();
  CHECK(flushed(s).size() == 1);
}

TEST_CASE("data access syncs only when something is pending for the base", "[cxx][session]") {
  SpyBackend& s = spy();
  array<double> a = full<double>({4}, 2.0);
  CHECK(a(1) == 2.0);
  CHECK(s.programs.size() == 1);
  CHECK(count(flushed(s), Opcode::SYNC) == 1);
  CHECK(a(2) == 2.0); // clean: no flush
  CHECK(a.to_vector().size() == 4);
  CHECK(s.programs.size() == 1);
  a += 1.0;
  CHECK(a(3) == 3.0);
  CHECK(s.programs.size() == 2);
}

TEST_CASE("where records one WHERE instruction", "[cxx][session]") {
  SpyBackend& s = spy();
  array<double> a = arange<double>(0.0, 8.0), b = ones<double>({8});
  flush();
  s.programs.clear();
  array<double> w = where(a > 3.0, a, b * 2.0);
  CHECK(w.to_vector() == std::vector<double>{2, 2, 2, 2, 4, 5, 6, 7});
  std::vector<Instruction> all = flushed(s);
  CHECK(count(all, Opcode::WHERE) == 1);
  CHECK(count(all, Opcode::COND_SCATTER) == 0);
}

TEST_CASE("the flush threshold bounds the pending program", "[cxx][session]") {
  SpyBackend& s = spy();
  int64_t old = flush_threshold();
  set_flush_threshold(10);
  array<double> a = zeros<double>({8});
  for (int i = 0; i < 35; ++i) a += 1.0;
  // Past the threshold the flush waits for the loop phase, at most twice the threshold
  // ([cxx] align_flushes, core/flush_policy.h).
  CHECK(s.programs.size() >= 1);
  for (const Program& p : s.programs) CHECK(p.instrs.size() <= 21);
  CHECK(detail::pending() <= 20);
  set_flush_threshold(old);
  CHECK(a(0) == 35.0);
}

TEST_CASE("the flush threshold defaults to [cxx] flush_threshold", "[cxx][session][config]") {
  SpyBackend& s = spy();
  array<double> a = zeros<double>({8});
  flush();
  s.programs.clear();
  std::shared_ptr<const Config> saved = Config::global();
  // The configuration's value (the environment may override it), read at the first use.
  set_flush_threshold(-1);
  CHECK(flush_threshold() == Config::global()->get_int("cxx", "flush_threshold"));
  Config::set_global(std::make_shared<const Config>(
      Config::from_text("[cxx]\nflush_threshold = 4\n", "test.ini", process_environment())));
  CHECK(flush_threshold() != 4); // read once, not at every operation
  set_flush_threshold(-1);       // read again
  CHECK(flush_threshold() == 4);
  for (int i = 0; i < 13; ++i) a += 1.0;
  // More than 4 pending force a flush, within twice the threshold (the loop phase, see above):
  // 13 additions are programs of 5 to 9 and at most 8 pending.
  CHECK(s.programs.size() >= 1);
  size_t flushed = 0;
  for (const Program& p : s.programs) {
    CHECK(p.instrs.size() >= 5);
    CHECK(p.instrs.size() <= 9);
    flushed += p.instrs.size();
  }
  CHECK(flushed + detail::pending() == 13);
  CHECK(detail::pending() <= 8);
  set_flush_threshold(6); // an explicit value wins over the configuration
  CHECK(flush_threshold() == 6);
  Config::set_global(saved);
  set_flush_threshold(-1);
  CHECK(flush_threshold() == saved->get_int("cxx", "flush_threshold"));
  CHECK(a(0) == 13.0);
}

TEST_CASE("errors record nothing and leave the runtime usable", "[cxx][session][errors]") {
  spy();
  flush();
  array<double> a = ones<double>({3, 4});
  array<double> b = ones<double>({4, 3});
  array<int32_t> i = ones<int32_t>({3, 4});
  size_t before = detail::pending();
  CHECK_THROWS_AS(a + b, hassium::error);
  CHECK_THROWS_AS(sum(i, -3), hassium::error);
  CHECK_THROWS_AS(cumsum(i, 2), hassium::error);
  CHECK_THROWS_AS(a(slice(0, 9), _), hassium::error);
  CHECK_THROWS_AS(sum(a, 3), hassium::error);
  CHECK_THROWS_AS(a.reshape({7}), hassium::error);
  CHECK(detail::pending() == before);
  a += 2.0;
  CHECK(sum(a).item() == 36.0);
}

TEST_CASE("after errors every base is still freed", "[cxx][session][errors]") {
  SpyBackend& s = spy();
  flush();
  s.programs.clear();
  {
    array<double> a = ones<double>({3, 4}), b = ones<double>({4, 3});
    array<double> c = a * 2.0;
    CHECK_THROWS_AS(a + b, hassium::error);
    CHECK_THROWS_AS(c(slice(1, 7), _) = 1.0, hassium::error);
    CHECK_THROWS_AS(mean(c, 2), hassium::error);
    CHECK_THROWS_AS(where(a > 0.0, a, b), hassium::error);
    c(1, _) = 5.0;
    CHECK(sum(c).item() == 36.0);
  }
  flush();
  // Every base an instruction named has exactly one FREE, after its last use.
  std::map<const Base*, int> named, freed;
  for (const Instruction& i : flushed(s))
    for (const auto& o : i.operands)
      if (auto* v = std::get_if<View>(&o)) (i.op == Opcode::FREE ? freed : named)[v->base.get()]++;
  CHECK(!named.empty());
  for (const auto& [base, uses] : named) CHECK(freed[base] == 1);
}

TEST_CASE("an error while running (bad data) leaves the runtime usable", "[cxx][session][errors]") {
  spy();
  array<int32_t> x{2, 3, 4}, e{1, -1, 2};
  array<int32_t> p = pow(x, e); // NumPy: integers to negative integer powers are not allowed
  CHECK(hstest::error_of([&] { (void)p.to_vector(); }).find("negative integer powers") !=
        std::string::npos);
  CHECK(detail::pending() == 0);
  array<int32_t> q = pow(x, e * e);
  CHECK(q.to_vector() == std::vector<int32_t>{2, 3, 256});
}

TEST_CASE("a write through element access runs pending readers of the array first",
          "[cxx][session]") {
  SpyBackend& s = spy();
  array<double> a = full<double>({4}, 1.0);
  flush();
  array<double> b = a * 2.0; // pending, reads a
  const array<double>& ca = a;
  CHECK(ca(1) == 1.0); // a read: a is clean, nothing runs
  size_t flushes = s.programs.size();
  CHECK(detail::pending() == 1);
  a(0) = 5.0; // a write: b = a * 2 runs before it
  CHECK(s.programs.size() == flushes + 1);
  CHECK(b(0) == 2.0);
  CHECK(a(0) == 5.0);
  double* p = a.data();
  p[1] = 7.0;
  hstest::check_values(a + 0.0, {5.0, 7.0, 1.0, 1.0});
}
