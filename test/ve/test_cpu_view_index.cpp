// Tests of core/view_index.cpp and of the planner's array merging built on it: the index
// agrees with a linear scan over View::identical, and a large block's arrays are the ones the
// pairwise definition gives (the first identical view of the same role where the block writes
// the view's base; an array per appearance where it only reads it).
#include <catch2/catch.hpp>

#include <random>
#include <set>

#include "core/view_index.h"
#include "test/ve/cpu_fixture.h"
#include "ve/cpu/plan.h"

using namespace hassium;
using namespace hassium::test;

namespace {
// A random view of one of a few bases, from a small set of geometries (many repeats).
View random_view(std::mt19937& rng, const std::vector<BasePtr>& bases) {
  std::uniform_int_distribution<int> pick_base(0, int(bases.size()) - 1), pick(0, 3);
  View v;
  v.base = bases[size_t(pick_base(rng))];
  v.offset = pick(rng);
  switch (pick(rng)) {
  case 0:
    v.shape = {8};
    v.stride = {1};
    break;
  case 1:
    v.shape = {8};
    v.stride = {2};
    break;
  case 2:
    v.shape = {2, 4};
    v.stride = {4, 1};
    break;
  default:
    v.shape = {4, 2};
    v.stride = {pick(rng), 1};
  }
  return v;
}
} // namespace

TEST_CASE("ViewIndex: the first identical view with the same tag, as a linear scan finds it",
          "[ve][cpu][view_index]") {
  std::mt19937 rng(11);
  std::vector<BasePtr> bases;
  for (int b = 0; b < 5; ++b)
    bases.push_back(make_data_base("b" + std::to_string(b), DType::FLOAT64, 64));
  ViewIndex index;
  for (int round = 0; round < 20; ++round) {
    std::vector<View> views;
    const size_t n = size_t(50 + 100 * round);
    views.reserve(n);
    for (size_t k = 0; k < n; ++k) views.push_back(random_view(rng, bases));
    std::vector<int> tags(n);
    for (auto& t : tags) t = int(rng() % 2);
    index.reset(round % 2 ? n : 0);
    std::vector<size_t> firsts; // the linear-scan definition: distinct (view, tag) so far
    for (size_t k = 0; k < n; ++k) {
      const int next = int(firsts.size());
      int expect = -1;
      for (size_t f = 0; f < firsts.size() && expect < 0; ++f)
        if (tags[firsts[f]] == tags[k] && views[firsts[f]].identical(views[k])) expect = int(f);
      if (expect < 0) {
        expect = next;
        firsts.push_back(k);
      }
      REQUIRE(index.find_or_insert(views[k], tags[k], next) == expect);
    }
    REQUIRE(index.size() == firsts.size());
  }
}

TEST_CASE("plan: a large block's arrays are the distinct (view, role) pairs in first-use order",
          "[ve][cpu][plan][view_index]") {
  // 3000 element-wise instructions over shifted views of a few bases and temporaries: many
  // operands repeat, many do not. Every operand of a base the block writes must map to the first
  // identical view; every operand of a base it only reads (the last 10) is an array of its own.
  const int64_t n = 64;
  std::mt19937 rng(3);
  std::vector<BasePtr> bases;
  for (int b = 0; b < 50; ++b)
    bases.push_back(make_data_base("a" + std::to_string(b), DType::FLOAT64, n + 8));
  Program p;
  std::vector<size_t> idx;
  std::uniform_int_distribution<int> pick_written(0, 39), pick_any(0, 49), shift(0, 8);
  auto some_view = [&](bool out) {
    return view(bases[size_t(out ? pick_written(rng) : pick_any(rng))], shift(rng), {n}, {1});
  };
  for (size_t i = 0; i < 3000; ++i) {
    p.instrs.emplace_back(
        Opcode::ADD, std::vector<Operand>{some_view(true), some_view(false), some_view(false)});
    idx.push_back(i);
  }
  cpu::KernelPlan plan = cpu::plan_block(KernelBlock{&p, idx, {}});
  // The pairwise definition, recomputed here.
  std::set<const Base*> written_bases;
  for (const Instruction& ins : p.instrs) written_bases.insert(ins.view(0).base.get());
  REQUIRE(written_bases.size() == 40);
  std::vector<const View*> arrays;
  std::vector<bool> read, written;
  size_t op = 0, read_only = 0;
  for (const Instruction& ins : p.instrs) {
    REQUIRE(plan.instrs[op].operands.size() == 3);
    for (size_t k = 0; k < 3; ++k) {
      const View& v = ins.view(k);
      size_t a = 0;
      if (written_bases.count(v.base.get()))
        while (a < arrays.size() && !arrays[a]->identical(v)) ++a;
      else
        a = arrays.size(), ++read_only;
      if (a == arrays.size()) {
        arrays.push_back(&v);
        read.push_back(false);
        written.push_back(false);
      }
      (k == 0 ? written : read)[a] = true;
      REQUIRE(plan.instrs[op].operands[k].is_array);
      REQUIRE(plan.instrs[op].operands[k].index == int(a));
    }
    ++op;
  }
  CHECK(read_only > 500);
  REQUIRE(plan.arrays.size() == arrays.size());
  for (size_t a = 0; a < arrays.size(); ++a) {
    CHECK(plan.arrays[a].view == arrays[a]);
    CHECK(plan.arrays[a].read == read[a]);
    CHECK(plan.arrays[a].written == written[a]);
  }
}
