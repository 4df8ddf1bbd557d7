// Tests of ir/fusion/wsp_graph.cpp: dependency edges (checked against element sets), weight edges,
// fuse-preventing edges, block ordering and the partition checker.
#include <algorithm>

#include <catch2/catch.hpp>

#include "core/error.h"
#include "fusion_programs.h"
#include "ir/fusion/access_table.h"
#include "ir/fusion/fusibility.h"
#include "ir/fusion/wsp_graph.h"
#include "random_programs.h"
#include "reference_fusion.h"

using namespace hassium;

namespace {

// reach[f][g]: a path f -> g of dependency edges.
std::vector<std::vector<bool>> closure(size_t n, const std::function<bool(size_t, size_t)>& edge) {
  std::vector<std::vector<bool>> r(n, std::vector<bool>(n, false));
  for (size_t f = 0; f < n; ++f)
    for (size_t g = 0; g < n; ++g) r[f][g] = edge(f, g);
  for (size_t k = 0; k < n; ++k)
    for (size_t f = 0; f < n; ++f)
      if (r[f][k])
        for (size_t g = 0; g < n; ++g)
          if (r[k][g]) r[f][g] = true;
  return r;
}

bool has_edge(const WspGraph& g, size_t f, size_t h) {
  for (uint32_t s : g.successors(uint32_t(f)))
    if (s == h) return true;
  return false;
}

} // namespace

TEST_CASE("Fig. 3 dependencies") {
  Program p = test::paper_fig3();
  AccessTable t = build_access_table(p);
  auto model = make_cost_model("bohrium", t);
  WspGraph g(t, *model);
  auto reach = closure(p.size(), [&](size_t f, size_t h) { return has_edge(g, f, h); });
  auto dep = [&](int f, int h) { return bool(reach[size_t(f - 1)][size_t(h - 1)]); };
  CHECK(dep(1, 5));   // A created, then read and written
  CHECK(dep(3, 5));   // reads D[:-1] that 3 wrote
  CHECK(dep(5, 6));   // both write A
  CHECK(dep(5, 10));  // 10 writes D[1:], which overlaps D[:-1] read by 5
  CHECK(dep(9, 10));  // T
  CHECK(dep(10, 11)); // D[1:] read after written; E[1:] written after read
  CHECK(dep(9, 12));  // FREE A after every access of A
  CHECK(dep(11, 16)); // SYNC D after the writes of D
  CHECK(dep(16, 17)); // FREE D after SYNC D
  CHECK_FALSE(dep(1, 2));
  CHECK_FALSE(dep(5, 7));
  CHECK_FALSE(dep(12, 13));
  CHECK_FALSE(dep(3, 4));
  // Edges go forward in program order and are never repeated.
  for (uint32_t f = 0; f < g.size(); ++f) {
    auto s = g.successors(f);
    for (size_t k = 0; k < s.size(); ++k) {
      CHECK(s[k] > f);
      if (k) CHECK(s[k - 1] < s[k]);
    }
  }
  CHECK(boost::num_vertices(g.graph()) == p.size());
}

TEST_CASE("dependency edges have the reachability of the full relation") {
  std::mt19937 rng(99);
  for (int k = 0; k < 300; ++k) {
    Program p = test::random_program(rng, {.max_instrs = 16});
    test::Reference ref(p);
    AccessTable t = build_access_table(p);
    auto model = make_cost_model("bohrium", t);
    WspGraph g(t, *model);
    const size_t n = p.size();
    for (uint32_t f = 0; f < n; ++f)
      for (uint32_t h : g.successors(f)) REQUIRE(ref.dependency(f, h)); // no spurious edge
    auto mine = closure(n, [&](size_t f, size_t h) { return has_edge(g, f, h); });
    auto full = closure(n, [&](size_t f, size_t h) { return f < h && ref.dependency(f, h); });
    REQUIRE(mine == full);
    // Predecessor lists mirror successor lists; the Boost graph holds the same edges.
    size_t boost_deps = 0;
    for (auto [e, end] = boost::edges(g.graph()); e != end; ++e)
      if (g.graph()[*e].kind == WspEdgeKind::DEPENDENCY) {
        ++boost_deps;
        REQUIRE(has_edge(g, boost::source(*e, g.graph()), boost::target(*e, g.graph())));
      }
    REQUIRE(boost_deps == g.num_dependencies());
    for (uint32_t h = 0; h < n; ++h)
      for (uint32_t f : g.predecessors(h)) REQUIRE(has_edge(g, f, h));
  }
}

TEST_CASE("overlap lists agree with the exact overlap test where a view is written") {
  std::mt19937 rng(5);
  for (int k = 0; k < 200; ++k) {
    Program p = test::random_program(rng, {.max_instrs = 12});
    AccessTable t = build_access_table(p);
    for (uint32_t v = 0; v < t.views.size(); ++v)
      for (uint32_t u = 0; u < t.views.size(); ++u) {
        bool expect = v != u && (t.views[v].written || t.views[u].written) &&
                      overlaps(*t.views[v].view, *t.views[u].view);
        REQUIRE(t.overlapping(v, u) == expect);
        if (v != u) REQUIRE_FALSE(t.views[v].view->identical(*t.views[u].view)); // interned
      }
  }
}

TEST_CASE("overlap lists of a matrix's rows, columns, blocks and strided views are exact") {
  // Views of a 7 x 9 matrix (and of it seen as 3-D) as loops over rows and columns make them:
  // the sweep cuts the base into boxes of rows; every written pair must still be found. Every
  // other program draws mostly columns, so the sweep runs along columns there.
  std::mt19937 rng(11);
  auto pick = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int k = 0; k < 300; ++k) {
    test::ProgramBuilder b;
    const int64_t rows = 7, cols = 9;
    auto A = b.base("A", rows * cols);
    std::vector<View> views;
    const bool columns = k % 2 == 1;
    while (views.size() < 24) {
      View v;
      switch (columns && pick(0, 3) > 0 ? 1 : pick(0, 6)) {
      case 0: { // part of a row
        int64_t r = pick(0, rows - 1), c = pick(0, cols - 1), n = pick(1, cols - c);
        v = test::ProgramBuilder::view(A, r * cols + c, n);
        break;
      }
      case 1: { // part of a column
        int64_t r = pick(0, rows - 1), c = pick(0, cols - 1), n = pick(1, rows - r);
        v = test::ProgramBuilder::view(A, r * cols + c, n, cols);
        break;
      }
      case 2: { // a block, maybe transposed or reversed along an axis
        int64_t r = pick(0, rows - 2), c = pick(0, cols - 2);
        int64_t m = pick(1, rows - r), n = pick(1, cols - c);
        if (pick(0, 1))
          v = test::ProgramBuilder::view(A, r * cols + c, Dims{m, n}, Dims{cols, 1});
        else
          v = test::ProgramBuilder::view(A, r * cols + c + n - 1, Dims{n, m}, Dims{-1, cols});
        break;
      }
      case 3: { // a diagonal or an anti-diagonal
        int64_t n = pick(1, rows);
        v = pick(0, 1) ? test::ProgramBuilder::view(A, 0, n, cols + 1)
                       : test::ProgramBuilder::view(A, cols - 1, n, cols - 1);
        break;
      }
      case 4: { // a flat run that wraps across rows
        int64_t o = pick(0, rows * cols - 2), n = pick(1, rows * cols - o);
        v = test::ProgramBuilder::view(A, o, n);
        break;
      }
      case 5: { // every other column of a few rows
        int64_t r = pick(0, rows - 1), m = pick(1, rows - r), n = pick(1, (cols + 1) / 2);
        v = test::ProgramBuilder::view(A, r * cols + pick(0, cols - 2 * n + 1), Dims{m, n},
                                       Dims{cols, 2});
        break;
      }
      default: { // a 0-d element
        v = test::ProgramBuilder::view(A, pick(0, rows * cols - 1), Dims{}, Dims{});
        break;
      }
      }
      REQUIRE(v.in_bounds());
      views.push_back(v);
    }
    // Each view copied into a temporary of its shape (a read) or from one (a write).
    for (const View& v : views) {
      Dims shape = v.shape;
      int64_t size = v.size();
      auto T = b.base("T" + std::to_string(b.p.bases.size()), size);
      View t = View::contiguous(T, shape);
      if (pick(0, 2) == 0)
        b.op(Opcode::IDENTITY, {v, t});
      else
        b.op(Opcode::IDENTITY, {t, v});
    }
    AccessTable t = build_access_table(b.p);
    auto is_a = [&](const BaseEntry& e) { return e.base == A.get(); };
    auto base_it = std::find_if(t.bases.begin(), t.bases.end(), is_a);
    REQUIRE(base_it != t.bases.end());
    const BaseEntry& base = *base_it;
    REQUIRE(base.end_view - base.first_view >= 10); // identical views are interned
    for (uint32_t v = base.first_view; v < base.end_view; ++v)
      for (uint32_t u = base.first_view; u < base.end_view; ++u) {
        bool expect = v != u && (t.views[v].written || t.views[u].written) &&
                      overlaps(*t.views[v].view, *t.views[u].view);
        INFO("program " << k << " views " << v << ", " << u);
        REQUIRE(t.overlapping(v, u) == expect);
      }
  }
}

TEST_CASE("weight edges carry the savings of merging the two singletons") {
  std::mt19937 rng(17);
  for (int k = 0; k < 100; ++k) {
    Program p = test::random_program(rng);
    AccessTable t = build_access_table(p);
    for (const char* name : {"bohrium", "max_locality", "robinson"}) {
      auto model = make_cost_model(name, t);
      WspGraph g(t, *model);
      std::vector<std::vector<size_t>> singles;
      for (size_t i = 0; i < p.size(); ++i) singles.push_back({i});
      const int64_t base_cost = partition_cost(*model, singles);
      size_t weight_edges = 0;
      for (auto [e, end] = boost::edges(g.graph()); e != end; ++e) {
        if (g.graph()[*e].kind != WspEdgeKind::WEIGHT) continue;
        ++weight_edges;
        size_t u = boost::source(*e, g.graph()), v = boost::target(*e, g.graph());
        REQUIRE(fusible(t, uint32_t(u), uint32_t(v)));
        std::vector<std::vector<size_t>> merged;
        for (size_t i = 0; i < p.size(); ++i)
          if (i != v) merged.push_back(i == u ? std::vector<size_t>{u, v} : std::vector<size_t>{i});
        REQUIRE(g.graph()[*e].weight == base_cost - partition_cost(*model, merged));
      }
      REQUIRE(weight_edges == g.weight_edges().size());
    }
  }
}

TEST_CASE("fuse-preventing edges on request are exactly the non-fusible pairs") {
  std::mt19937 rng(3);
  for (int k = 0; k < 100; ++k) {
    Program p = test::random_program(rng);
    test::Reference ref(p);
    AccessTable t = build_access_table(p);
    auto model = make_cost_model("bohrium", t);
    WspGraph plain(t, *model);
    WspGraph full(t, *model, {.fuse_preventing_edges = true});
    std::set<std::pair<size_t, size_t>> preventing;
    for (auto [e, end] = boost::edges(full.graph()); e != end; ++e)
      if (full.graph()[*e].kind == WspEdgeKind::FUSE_PREVENTING)
        preventing.insert({boost::source(*e, full.graph()), boost::target(*e, full.graph())});
    for (auto [e, end] = boost::edges(plain.graph()); e != end; ++e)
      REQUIRE(plain.graph()[*e].kind != WspEdgeKind::FUSE_PREVENTING);
    for (size_t f = 0; f < p.size(); ++f)
      for (size_t h = f + 1; h < p.size(); ++h)
        REQUIRE(preventing.count({f, h}) == !ref.fusible(f, h));
  }
}

TEST_CASE("order_blocks and check_partition") {
  Program p = test::paper_fig3();
  AccessTable t = build_access_table(p);
  auto model = make_cost_model("bohrium", t);
  WspGraph g(t, *model);
  // Blocks given out of order come back in dependency order, instructions sorted.
  std::vector<std::vector<uint32_t>> blocks = {
      {16, 15}, {10, 9}, {8, 5, 6, 4, 0, 1, 7, 11, 12}, {3}, {2}, {13}, {14}};
  auto ordered = order_blocks(g, blocks);
  CHECK(check_partition(g.table(), ordered) == "");
  CHECK(ordered.front() == std::vector<size_t>{2}); // D is created before anything reads it
  for (const auto& b : ordered) CHECK(std::is_sorted(b.begin(), b.end()));
  // Cycle: 5 and 10 are not fusible, and {1..9} + {10} + ... with 3 after 5.
  std::vector<std::vector<size_t>> cyclic = {
      {0, 1, 3, 4, 5, 6, 7, 8}, {2, 9}, {10, 11, 12, 13, 14, 15, 16}};
  CHECK(check_partition(g.table(), cyclic) != "");
  std::vector<std::vector<size_t>> unfusible = {{0, 1, 2, 3}};
  for (size_t i = 4; i < p.size(); ++i) unfusible.push_back({i});
  CHECK(check_partition(g.table(), unfusible).find("not fusible") != std::string::npos);
  std::vector<std::vector<size_t>> missing = {{0}};
  CHECK(check_partition(g.table(), missing).find("in no block") != std::string::npos);
  std::vector<std::vector<size_t>> backwards;
  for (size_t i = p.size(); i-- > 0;) backwards.push_back({i});
  CHECK(check_partition(g.table(), backwards).find("depends on") != std::string::npos);
  std::vector<std::vector<uint32_t>> cyclic32 = {
      {0, 1, 3, 4, 5, 6, 7, 8}, {2, 9}, {10, 11, 12, 13, 14, 15, 16}};
  CHECK_THROWS_AS(order_blocks(g, cyclic32), InternalError);
}
