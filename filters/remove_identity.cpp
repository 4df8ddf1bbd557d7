// remove_identity: drops a whole-base copy `IDENTITY B, A` that only renames a temporary.
//
// Contract: a copy whose output and input each cover a whole base (contiguous from element 0),
// with the same dtype (no cast), the same number of elements and the same shape, is removed
// in one of two ways, tried in this order:
//   forward  (B is the temporary)  B is FREEd later in the program and not SYNCed after the
//            copy; A is neither read, written nor SYNCed after the copy but is FREEd. The copy
//            becomes `FREE B`, every later use of B a use of A (B's FREE frees A), and A's own
//            FREE is dropped.
//   backward (A is the temporary)  A's first access in the program writes all of it (not a
//            scatter, which writes only the indexed elements); A is
//            FREEd after the copy and not otherwise used after it nor SYNCed; B is not used
//            between that first write and the copy. The instructions from A's first write up
//            to the copy write and read B instead; the copy is dropped (A's FREE stays: A may
//            hold a buffer from an earlier flush).
// Two more kinds of copy go:
//   into a view  `IDENTITY V, A` with V any view (same shape and dtype) of another base B, A a
//            temporary covered by one element-wise instruction f and otherwise used only by the
//            copy and its FREE: f writes V instead, if f's inputs on B are disjoint from or
//            identical to V (the data-parallel rule) and nothing between f and the copy
//            touches B where it overlaps V (nor SYNCs B). This is NumPy's `x[1:-1] = expr`.
//   no-op    `IDENTITY V, V` (identical views, same dtype), e.g. what the rewrite above leaves of
//            `t = x[1:]; x[1:] = t`: dropped.
// Forward is the copy `T2 = T1` of two temporaries; backward is `x[...] = expression` (the
// expression's temporary written straight into x). Either way one full read and write of the
// array disappears, and no base that outlives the program or is SYNCed changes identity.
// Complexity: O(operands + the uses of the two bases of each copy looked at); the index of uses
// per base is updated in place at each rewrite.
#include <algorithm>
#include <unordered_map>

#include "filters/filters.h"
#include "filters/rewrite.h"

namespace hassium {

namespace {

using filters::reads;
using filters::touches;
using filters::writes;

struct Uses {
  std::vector<size_t> at; // instruction indices that touch the base, in order
  long free_at = -1;
  bool synced = false;
};

std::unordered_map<const Base*, Uses> index_uses(const Program& p, const std::vector<bool>& drop) {
  std::unordered_map<const Base*, Uses> uses;
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    if (drop[i]) continue;
    const Instruction& ins = p.instrs[i];
    const Base* last = nullptr;
    for (size_t k = 0; k < ins.operands.size(); ++k) {
      if (!ins.is_view(k)) continue;
      const Base* b = ins.view(k).base.get();
      if (b == last) continue;
      Uses& u = uses[b];
      if (u.at.empty() || u.at.back() != i) u.at.push_back(i);
      last = b;
    }
    if (ins.op == Opcode::FREE) uses[ins.out().base.get()].free_at = long(i);
    if (ins.op == Opcode::SYNC) uses[ins.out().base.get()].synced = true;
  }
  return uses;
}

bool is_rename_copy(const Instruction& ins) {
  if (ins.op != Opcode::IDENTITY || !ins.is_view(1)) return false;
  const View &b = ins.out(), &a = ins.view(1);
  return b.base != a.base && a.dtype() == b.dtype() && a.base->nelem == b.base->nelem &&
         a.shape == b.shape && filters::covers_base(a) && filters::covers_base(b);
}

// Uses of `base` strictly after i other than its FREE.
bool used_after(const Program& p, const Uses& u, size_t i) {
  for (size_t j : u.at)
    if (j > i && p.instrs[j].op != Opcode::FREE) return true;
  return false;
}

bool synced_after(const Program& p, const Uses& u, size_t i) {
  for (size_t j : u.at)
    if (j > i && p.instrs[j].op == Opcode::SYNC) return true;
  return false;
}

bool try_forward(Program& p, size_t i, std::unordered_map<const Base*, Uses>& uses,
                 std::vector<bool>& drop) {
  const Instruction& copy = p.instrs[i];
  BasePtr b = copy.out().base, a = copy.view(1).base;
  const Uses &ub = uses[b.get()], &ua = uses[a.get()];
  if (ub.free_at < long(i) || synced_after(p, ub, i)) return false;
  if (ua.free_at < long(i) || ua.synced || used_after(p, ua, i)) return false;
  drop[size_t(ua.free_at)] = true;
  p.instrs[i] = filters::free_of(b);
  for (size_t j : ub.at)
    if (j > i) filters::rename_base(p.instrs[j], b.get(), a);
  // The index follows: A keeps its uses before i and takes B's after i; B ends at i.
  Uses na, nb;
  for (size_t j : ua.at)
    if (j < i) na.at.push_back(j);
  for (size_t j : ub.at) (j > i ? na.at : nb.at).push_back(j);
  if (nb.at.empty() || nb.at.back() != i) nb.at.push_back(i);
  na.free_at = ub.free_at;
  nb.free_at = long(i);
  nb.synced = ub.synced;
  uses[a.get()] = std::move(na);
  uses[b.get()] = std::move(nb);
  return true;
}

bool try_backward(Program& p, size_t i, std::unordered_map<const Base*, Uses>& uses,
                  std::vector<bool>& drop) {
  const Instruction& copy = p.instrs[i];
  BasePtr b = copy.out().base, a = copy.view(1).base;
  const Uses &ub = uses[b.get()], &ua = uses[a.get()];
  if (ua.free_at < long(i) || ua.synced || used_after(p, ua, i)) return false;
  size_t first = ua.at.front();
  const Instruction& f = p.instrs[first];
  if (first >= i || !writes(f, a.get()) || reads(f, a.get()) || writes_indexed_only(f.op) ||
      !filters::covers_base(f.out()))
    return false;
  for (size_t j : ub.at)
    if (j >= first && j < i) return false;
  drop[i] = true;
  for (size_t j : ua.at)
    if (j < i) filters::rename_base(p.instrs[j], a.get(), b);
  // The index follows: B takes A's uses before i (all after B's last use before them) and
  // loses the copy; A keeps only its FREE.
  Uses nb, na;
  for (size_t j : ub.at)
    if (j < first) nb.at.push_back(j);
  for (size_t j : ua.at)
    if (j < i) nb.at.push_back(j);
  for (size_t j : ub.at)
    if (j > i) nb.at.push_back(j);
  nb.free_at = ub.free_at;
  nb.synced = ub.synced;
  na.at = {size_t(ua.free_at)};
  na.free_at = ua.free_at;
  uses[b.get()] = std::move(nb);
  uses[a.get()] = std::move(na);
  return true;
}

void erase_use(Uses& u, size_t i) {
  u.at.erase(std::remove(u.at.begin(), u.at.end(), i), u.at.end());
}

bool is_noop_copy(const Instruction& ins) {
  return ins.op == Opcode::IDENTITY && ins.is_view(1) && ins.dtype(0) == ins.dtype(1) &&
         ins.out().identical(ins.view(1));
}

bool try_into_view(Program& p, size_t i, std::unordered_map<const Base*, Uses>& uses,
                   std::vector<bool>& drop) {
  const Instruction& copy = p.instrs[i];
  if (copy.op != Opcode::IDENTITY || !copy.is_view(1)) return false;
  const View v = copy.out();
  const View& av = copy.view(1);
  const Base *a = av.base.get(), *b = v.base.get();
  if (a == b || av.dtype() != v.dtype() || av.shape != v.shape || !filters::covers_base(av))
    return false;
  Uses &ua = uses[a], &ub = uses[b];
  if (ua.free_at < long(i) || ua.synced || ua.at.size() != 3 || ua.at[1] != i ||
      ua.at[2] != size_t(ua.free_at))
    return false;
  const size_t fi = ua.at[0];
  Instruction& f = p.instrs[fi];
  if (f.info().family != Family::ELEMENTWISE || !f.out().identical(av) || reads(f, a)) return false;
  for (const View* in : f.inputs())
    if (in->base.get() == b && overlaps(*in, v) && !in->identical(v)) return false;
  for (size_t j : ub.at) {
    if (j <= fi || j >= i) continue;
    const Instruction& g = p.instrs[j];
    if (g.op == Opcode::SYNC) return false;
    for (size_t k = 0; k < g.operands.size(); ++k)
      if (g.is_view(k) && g.view(k).base.get() == b && overlaps(g.view(k), v)) return false;
  }
  f.operands[0] = v;
  drop[i] = true;
  erase_use(ub, i);
  auto pos = std::lower_bound(ub.at.begin(), ub.at.end(), fi);
  if (pos == ub.at.end() || *pos != fi) ub.at.insert(pos, fi);
  ua.at = {size_t(ua.free_at)};
  if (is_noop_copy(f)) {
    drop[fi] = true;
    erase_use(ub, fi);
  }
  return true;
}

} // namespace

Program remove_identity(Program p) {
  std::vector<bool> drop(p.instrs.size(), false);
  auto uses = index_uses(p, drop);
  for (size_t i = 0; i < p.instrs.size(); ++i) {
    if (drop[i]) continue;
    if (is_noop_copy(p.instrs[i])) {
      drop[i] = true;
      erase_use(uses[p.instrs[i].out().base.get()], i);
    } else if (is_rename_copy(p.instrs[i])) {
      if (!try_forward(p, i, uses, drop) && !try_backward(p, i, uses, drop))
        try_into_view(p, i, uses, drop);
    } else {
      try_into_view(p, i, uses, drop);
    }
  }
  filters::erase_marked(p, drop);
  return p;
}

} // namespace hassium
