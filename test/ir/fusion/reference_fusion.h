// An independent reference for the fusion tests: dependencies, fusibility, legality (Def. 5),
// the bohrium cost and an exhaustive optimum, computed from element sets, pair by pair,
// straight from the definitions of DESIGN.md section 4 (nothing shared with ir/).
//
// Dependencies (f before g): g reads or writes an element f writes, or writes an element f
// reads; or one of them FREEs/SYNCs a base the other touches (DESIGN.md: FREE/SYNC after every
// access of their base; hassium also keeps later accesses after a FREE/SYNC of their base).
// Contraction (bohrium cost): a base created and FREEd inside a block, unless the program
// SYNCs it or an access needs its memory (hassium's rule, written down in ir/fusion/contraction.h).
#pragma once

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/program.h"

namespace hassium::test {

struct RefAccess {
  const Base* base;
  std::set<int64_t> elems; // element indices in the base
  bool write;
  const View* view;
};

struct RefInstr {
  std::vector<RefAccess> views;
  const Base* sys = nullptr; // FREE/SYNC base
  bool is_free = false;
  bool solo = false, reduction = false;
  Dims loop;
  int axis = -1;
};

inline std::set<int64_t> elements_of(const View& v) {
  std::set<int64_t> s;
  for (int64_t i = 0; i < v.size(); ++i) s.insert(v.index_of_flat(i));
  return s;
}

inline bool meet(const std::set<int64_t>& a, const std::set<int64_t>& b) {
  for (int64_t x : a)
    if (b.count(x)) return true;
  return false;
}

class Reference {
public:
  explicit Reference(const Program& p) : n_(p.size()) {
    for (const Instruction& ins : p.instrs) {
      RefInstr r;
      Family fam = ins.info().family;
      if (fam == Family::SYSTEM) {
        r.sys = ins.view(0).base.get();
        r.is_free = ins.op == Opcode::FREE;
      } else {
        for (size_t k = 0; k < ins.operands.size(); ++k)
          if (ins.is_view(k))
            r.views.push_back(
                {ins.view(k).base.get(), elements_of(ins.view(k)), k == 0, &ins.view(k)});
        r.solo = fam == Family::INDEXING || fam == Family::SCAN || fam == Family::EXTENSION;
        r.reduction = fam == Family::REDUCTION;
        r.loop = r.reduction ? ins.view(1).shape : ins.view(0).shape;
        if (r.reduction) r.axis = int(ins.constant(2).as_int());
      }
      ins_.push_back(r);
    }
    dep_.assign(n_, std::vector<bool>(n_, false));
    for (size_t f = 0; f < n_; ++f)
      for (size_t g = f + 1; g < n_; ++g) dep_[f][g] = depends(f, g);
  }

  bool depends(size_t f, size_t g) const {
    const RefInstr &a = ins_[f], &b = ins_[g];
    auto touches = [](const RefInstr& r, const Base* base) {
      if (r.sys == base) return true;
      for (const auto& v : r.views)
        if (v.base == base) return true;
      return false;
    };
    if (a.sys && touches(b, a.sys)) return true;
    if (b.sys && touches(a, b.sys)) return true;
    for (const auto& x : a.views)
      for (const auto& y : b.views)
        if (x.base == y.base && (x.write || y.write) && meet(x.elems, y.elems)) return true;
    return false;
  }

  bool fusible(size_t f, size_t g) const {
    const RefInstr &a = ins_[f], &b = ins_[g];
    if (a.sys || b.sys) return true;
    if (a.solo || b.solo) return false;
    if (a.loop != b.loop) return false;
    if (a.reduction && b.reduction && a.axis != b.axis) return false;
    for (const auto& x : a.views)
      for (const auto& y : b.views) {
        if (!x.write && !y.write) continue;
        if (x.base != y.base || !meet(x.elems, y.elems)) continue;
        if (!x.view->identical(*y.view)) return false;
      }
    return true;
  }

  // Def. 5 and the execution order of the listed blocks; "" when legal.
  std::string check(const std::vector<std::vector<size_t>>& blocks) const {
    std::vector<int> of(n_, -1);
    for (size_t b = 0; b < blocks.size(); ++b)
      for (size_t i : blocks[b]) {
        if (i >= n_ || of[i] != -1) return "bad or repeated instruction";
        of[i] = int(b);
      }
    for (size_t i = 0; i < n_; ++i)
      if (of[i] < 0) return "instruction missing";
    for (const auto& blk : blocks)
      for (size_t x = 0; x < blk.size(); ++x)
        for (size_t y = x + 1; y < blk.size(); ++y)
          if (!fusible(blk[x], blk[y])) return "non-fusible pair in a block";
    if (has_cycle(of, blocks.size())) return "cycle between blocks";
    for (size_t f = 0; f < n_; ++f)
      for (size_t g = f + 1; g < n_; ++g)
        if (dep_[f][g] && of[g] < of[f]) return "blocks listed out of dependency order";
    return "";
  }

  bool has_cycle(const std::vector<int>& of, size_t nblocks) const {
    std::vector<std::set<int>> out(nblocks);
    for (size_t f = 0; f < n_; ++f)
      for (size_t g = f + 1; g < n_; ++g)
        if (dep_[f][g] && of[f] != of[g]) out[size_t(of[f])].insert(of[g]);
    std::vector<int> color(nblocks, 0);
    std::function<bool(int)> dfs = [&](int b) {
      color[size_t(b)] = 1;
      for (int c : out[size_t(b)]) {
        if (color[size_t(c)] == 1) return true;
        if (color[size_t(c)] == 0 && dfs(c)) return true;
      }
      color[size_t(b)] = 2;
      return false;
    };
    for (size_t b = 0; b < nblocks; ++b)
      if (color[b] == 0 && dfs(int(b))) return true;
    return false;
  }

  // The bohrium cost (bytes) of Def. 13 as DESIGN.md states it.
  int64_t bohrium_cost(const std::vector<std::vector<size_t>>& blocks) const {
    // A base is created by its first toucher when that one writes it, reads nothing of it,
    // and the base has no data.
    std::map<const Base*, size_t> creator;
    std::set<const Base*> seen;
    for (size_t i = 0; i < n_; ++i) {
      std::set<const Base*> here;
      if (ins_[i].sys) here.insert(ins_[i].sys);
      for (const auto& v : ins_[i].views) here.insert(v.base);
      for (const Base* b : here) {
        if (seen.count(b)) continue;
        seen.insert(b);
        bool w = false, other = ins_[i].sys == b;
        for (const auto& v : ins_[i].views)
          if (v.base == b) (v.write ? w : other) = true;
        if (w && !other && b->data == nullptr && !b->external_owner) creator[b] = i;
      }
    }
    // A base the program SYNCs must reach memory: never contracted. Nor one that needs memory
    // to be read back: a reduction's output, an indexing or scan operand, two different views
    // of it, a view that visits an element twice (a broadcast write).
    for (size_t i = 0; i < n_; ++i)
      if (ins_[i].sys && !ins_[i].is_free) creator.erase(ins_[i].sys);
    std::map<const Base*, const View*> first_view;
    for (size_t i = 0; i < n_; ++i)
      for (const auto& v : ins_[i].views) {
        if (!creator.count(v.base)) continue;
        const View*& f = first_view[v.base];
        if (!f) f = v.view;
        const bool needs_memory = ins_[i].solo || (ins_[i].reduction && v.write) ||
                                  !f->identical(*v.view) ||
                                  int64_t(v.elems.size()) != v.view->size();
        if (needs_memory) creator.erase(v.base);
      }
    int64_t total = 0;
    for (auto blk : blocks) {
      std::sort(blk.begin(), blk.end());
      std::set<const Base*> contracted;
      for (auto [b, c] : creator) {
        bool has_c = std::count(blk.begin(), blk.end(), c) > 0, freed = false;
        for (size_t i : blk)
          if (ins_[i].sys == b && ins_[i].is_free) freed = true;
        if (has_c && freed) contracted.insert(b);
      }
      std::vector<const View*> read, written;
      auto in = [](const std::vector<const View*>& list, const View* v) {
        for (const View* x : list)
          if (x->identical(*v)) return true;
        return false;
      };
      for (size_t i : blk) {
        for (const auto& a : ins_[i].views) // reads first: an instruction reads, then writes
          if (!a.write && !in(written, a.view) && !in(read, a.view)) read.push_back(a.view);
        for (const auto& a : ins_[i].views)
          if (a.write && !in(written, a.view)) written.push_back(a.view);
      }
      for (const View* v : read)
        if (!contracted.count(v->base.get())) total += v->size() * dtype_size(v->dtype());
      for (const View* v : written)
        if (!contracted.count(v->base.get())) total += v->size() * dtype_size(v->dtype());
    }
    return total;
  }

  // The least cost over all legal partitions, by enumerating set partitions (restricted
  // growth strings), cutting branches only where a block already holds a non-fusible pair.
  int64_t exhaustive_optimum(
      const std::function<int64_t(const std::vector<std::vector<size_t>>&)>& cost) const {
    int64_t best = INT64_MAX;
    std::vector<std::vector<size_t>> blocks;
    std::vector<int> of(n_, -1);
    std::function<void(size_t)> rec = [&](size_t i) {
      if (i == n_) {
        if (!has_cycle(of, blocks.size())) best = std::min(best, cost(blocks));
        return;
      }
      for (size_t b = 0; b <= blocks.size(); ++b) {
        if (b == blocks.size()) {
          blocks.push_back({i});
        } else {
          bool ok = true;
          for (size_t j : blocks[b]) ok = ok && fusible(j, i);
          if (!ok) continue;
          blocks[b].push_back(i);
        }
        of[i] = int(b);
        rec(i + 1);
        of[i] = -1;
        if (blocks[b].size() == 1)
          blocks.pop_back();
        else
          blocks[b].pop_back();
      }
    };
    rec(0);
    return best;
  }

  size_t size() const { return n_; }
  bool dependency(size_t f, size_t g) const { return dep_[f][g]; }

private:
  size_t n_;
  std::vector<RefInstr> ins_;
  std::vector<std::vector<bool>> dep_;
};

} // namespace hassium::test
