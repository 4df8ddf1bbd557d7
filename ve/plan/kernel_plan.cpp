// plan_block: a fused block -> its loop structure (reordered, collapsed), arrays, constants, the
// spec string, and this call's pointers and parameters.
#include "ve/plan/kernel_plan.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>
#include <numeric>
#include <unordered_map>

#include <boost/container/small_vector.hpp>

#include "core/error.h"
#include "core/pointer_index.h"
#include "core/view_index.h"

namespace hassium::plan {

namespace {
constexpr int64_t kChunkMin = int64_t(1) << 15;   // elements per chunk of a partial reduction
constexpr int64_t kMaxChunks = 64;                // partial results per reduction at most
constexpr int64_t kPartialCap = int64_t(1) << 24; // elements of partials per reduction at most
constexpr int64_t kSplitMinExtent = 8;            // prefer splitting a level at least this long
constexpr int64_t kSmallOutput = 4096;            // reductions this small may split their axis

// The role an operand plays in the loop nest.
ArrayRole role_of(const Instruction& in, size_t pos) {
  if (in.info().family == Family::REDUCTION && pos == 0) return ArrayRole::REDUCED;
  if (in.op == Opcode::GATHER && pos == 1) return ArrayRole::FLAT;
  if (writes_indexed_only(in.op) && pos == 0) return ArrayRole::FLAT;
  return ArrayRole::LOOP;
}

// The signature's free type T of an instruction.
DType free_type(const Instruction& in) {
  if (in.info().rule == SigRule::SELECT) return in.dtype(0); // WHERE out, cond, a, b
  switch (in.info().family) {
  case Family::GENERATOR:
    return in.dtype(0);
  case Family::INDEXING:
    return in.dtype(0);
  default:
    return in.operands.size() > 1 ? in.dtype(1) : in.dtype(0);
  }
}

StrideClass classify(int64_t stride) {
  return stride == 0 ? StrideClass::ZERO : stride == 1 ? StrideClass::ONE : StrideClass::ANY;
}

char class_char(StrideClass c) {
  return c == StrideClass::ZERO ? '0' : c == StrideClass::ONE ? '1' : 'n';
}

// Appends to a string through a stack buffer (the spec is built on every execute(): one copy
// per 256 characters instead of a call per character).
class SpecWriter {
public:
  explicit SpecWriter(std::string& out) : out_(out) { out_.clear(); }
  ~SpecWriter() { flush(); }
  SpecWriter(const SpecWriter&) = delete;
  SpecWriter& operator=(const SpecWriter&) = delete;
  SpecWriter& operator+=(char c) {
    if (n_ == sizeof buf_) flush();
    buf_[n_++] = c;
    return *this;
  }
  SpecWriter& operator+=(const char* text) {
    while (*text) *this += *text++;
    return *this;
  }
  void append_int(int64_t v) {
    if (v >= 0 && v < 10) {
      *this += char('0' + v);
      return;
    }
    if (n_ + 24 > sizeof buf_) flush();
    n_ = size_t(std::to_chars(buf_ + n_, buf_ + sizeof buf_, v).ptr - buf_);
  }

private:
  void flush() {
    out_.append(buf_, n_);
    n_ = 0;
  }
  std::string& out_;
  char buf_[256];
  size_t n_ = 0;
};

inline void append_int(SpecWriter& s, int64_t v) {
  s.append_int(v);
}

// A constant's two parameter slots: its bits as the kernel reads them (float32 rounded).
std::array<int64_t, 2> constant_slots(const Scalar& s) {
  std::array<int64_t, 2> slots = {0, 0};
  const DType t = s.dtype;
  if (t == DType::BOOL) {
    slots[0] = s.b;
  } else if (is_signed_int(t)) {
    slots[0] = s.i;
  } else if (is_unsigned_int(t)) {
    slots[0] = int64_t(s.u);
  } else if (t == DType::FLOAT32 || t == DType::COMPLEX64) {
    float re = float(s.re), im = float(s.im);
    std::memcpy(&slots[0], &re, sizeof re);
    std::memcpy(&slots[1], &im, sizeof im);
  } else {
    std::memcpy(&slots[0], &s.re, sizeof s.re);
    std::memcpy(&slots[1], &s.im, sizeof s.im);
  }
  return slots;
}

// Constants by dtype and slots, for sharing them in a plan.
struct ConstantKey {
  DType dtype;
  std::array<int64_t, 2> slots;
  bool operator==(const ConstantKey&) const = default;
};
struct ConstantKeyHash {
  size_t operator()(const ConstantKey& k) const {
    uint64_t h = uint64_t(k.slots[0]) * 0x9E3779B97F4A7C15ull;
    h ^= uint64_t(k.slots[1]) + 0x632BE59BD9B4E019ull + (h << 6) + (h >> 2);
    return size_t(h ^ (uint64_t(k.dtype) << 56));
  }
};

// Row-major contiguous strides of a shape.
Dims contiguous_strides(const Dims& shape) {
  Dims s(shape.size());
  int64_t n = 1;
  for (size_t k = shape.size(); k-- > 0;) {
    s[k] = n;
    n *= shape[k];
  }
  return s;
}

struct Builder {
  const KernelBlock& block;
  KernelPlan& plan;
  Dims shape;    // loop shape, original order
  int axis = -1; // original dimension of the reduction/scan axis
  // Per array: loop strides (LOOP, REDUCED), original order. Inline for the usual sizes.
  boost::container::small_vector<Dims, 8> strides;
  Dims position; // row-major position strides
  bool needs_position = false;

  // Identical views (same role) of a base the block writes -> their array; the contracted
  // bases; the written ones. Per thread, reused.
  ViewIndex& arrays_by_view;
  PointerIndex& contracted;
  PointerIndex& written;

  static ViewIndex& view_index() {
    thread_local ViewIndex index;
    return index;
  }
  static PointerIndex& pointer_index() {
    thread_local PointerIndex index;
    return index;
  }
  static PointerIndex& written_index() {
    thread_local PointerIndex index;
    return index;
  }
  // The constants collect() found, by value: searched in turn while few, then through an index
  // (per thread, reused).
  static constexpr size_t kConstantsSearched = 8;
  boost::container::small_vector<ConstantKey, kConstantsSearched> constant_keys;
  static std::unordered_map<ConstantKey, int, ConstantKeyHash>& constant_index() {
    thread_local std::unordered_map<ConstantKey, int, ConstantKeyHash> index;
    return index;
  }

  // For replan_block: the plan's arrays, instructions and constants stand; only the geometry
  // is derived again.
  struct Geometry {};
  Builder(const KernelBlock& b, KernelPlan& out, Geometry)
      : block(b), plan(out), arrays_by_view(view_index()), contracted(pointer_index()),
        written(written_index()) {
    shape = b.program->instrs[b.instrs[0]].loop_shape();
    axis = plan.source_axis;
    needs_position = plan.position_param >= 0;
  }

  Builder(const KernelBlock& b, KernelPlan& out)
      : block(b), plan(out), arrays_by_view(view_index()), contracted(pointer_index()),
        written(written_index()) {
    const size_t n = b.instrs.size();
    plan.arrays.reserve(3 * n);
    plan.instrs.reserve(n);
    plan.constants.reserve(n);
    plan.params.reserve(16 + 12 * n);
    plan.ptrs.reserve(3 * n);
    arrays_by_view.reset(3 * n);
    contracted.reset(b.contracted.size());
    for (const Base* base : b.contracted) contracted.insert(base);
    written.reset(n);
    for (size_t idx : b.instrs) {
      const Instruction& in = b.program->instrs[idx];
      if (in.is_view(0)) written.insert(in.view(0).base.get());
    }
  }

  bool is_contracted(const Base* base) const { return contracted.contains(base); }

  // The array of view v in this role, added when new: the first identical view's where the
  // block writes v's base; a view of a base the block only reads is an array of its own at each
  // appearance, so a plan holds for every program of its flush's key, whose reads may coincide
  // otherwise (MergeCache::write_key tracks view identity only for written bases).
  int add_array(const View& v, ArrayRole role, bool write, size_t instr, size_t operand) {
    const int next = int(plan.arrays.size());
    const int i =
        written.contains(v.base.get()) ? arrays_by_view.find_or_insert(v, int(role), next) : next;
    if (i != next) {
      PlanArray& a = plan.arrays[size_t(i)];
      (write ? a.written : a.read) = true;
      return i;
    }
    PlanArray a;
    a.view = &v;
    a.instr = uint32_t(instr);
    a.operand = uint8_t(operand);
    a.dtype = v.dtype();
    a.role = role;
    a.contracted = is_contracted(v.base.get());
    (write ? a.written : a.read) = true;
    plan.arrays.push_back(a);
    return int(plan.arrays.size() - 1);
  }

  // The constant operand p of instruction idx: a constant of the plan's (the same dtype and bits
  // as an earlier operand: that one's, and a use to check at bind), or a new one.
  int add_constant(const Scalar& s, size_t idx, size_t p) {
    const ConstantKey key{s.dtype, constant_slots(s)};
    const int next = int(plan.constants.size());
    int found = next;
    if (constant_keys.size() < kConstantsSearched) {
      for (size_t c = 0; c < constant_keys.size() && found == next; ++c)
        if (constant_keys[c] == key) found = int(c);
      if (found == next) constant_keys.push_back(key);
    } else {
      auto& index = constant_index();
      if (index.empty())
        for (size_t c = 0; c < constant_keys.size(); ++c) index.emplace(constant_keys[c], int(c));
      found = index.try_emplace(key, next).first->second;
    }
    if (found == next)
      plan.constants.push_back({s.dtype, -1, uint32_t(idx), uint8_t(p)});
    else
      plan.constant_uses.push_back({uint32_t(idx), uint8_t(p), found});
    return found;
  }

  void collect() {
    const Program& prog = *block.program;
    HS_INTERNAL_ASSERT(!block.instrs.empty()) << "an empty block";
    if (!constant_index().empty()) constant_index().clear();
    shape = prog.instrs[block.instrs[0]].loop_shape();
    for (size_t idx : block.instrs) {
      const Instruction& in = prog.instrs[idx];
      const OpInfo& info = in.info();
      HS_INTERNAL_ASSERT(!in.is_system()) << "system instruction in a block";
      HS_INTERNAL_ASSERT(in.loop_shape() == shape)
          << "block mixes loop shapes: " << info.name << " loops over "
          << dims_text(in.loop_shape()) << ", the block over " << dims_text(shape);
      PlanInstr pi{in.op, free_type(in), in.dtype(0), {}};
      bool has_axis = info.rule == SigRule::REDUCE;
      if (has_axis) {
        int ax = in.axis();
        int nd = int(shape.size());
        if (ax < 0) ax += nd;
        HS_INTERNAL_ASSERT(ax >= 0 && ax < nd)
            << info.name << ": axis " << in.axis() << " of a " << nd << "-d loop";
        HS_INTERNAL_ASSERT(axis < 0 || axis == ax) << "block reduces over two axes";
        axis = ax;
        if (info.family == Family::SCAN)
          plan.has_scan = true;
        else
          plan.has_reduction = true;
      }
      if (in.op == Opcode::RANGE || in.op == Opcode::RANDOM) needs_position = true;
      if (writes_indexed_only(in.op)) plan.writes_flat = true;
      size_t n = has_axis ? 2 : in.operands.size();
      for (size_t p = 0; p < n; ++p) {
        if (in.is_view(p)) {
          pi.operands.push_back({true, add_array(in.view(p), role_of(in, p), p == 0, idx, p)});
        } else {
          pi.operands.push_back({false, add_constant(in.constant(p), idx, p)});
        }
      }
      plan.instrs.push_back(std::move(pi));
    }
  }

  // Loop strides of every LOOP/REDUCED array in the original dimension order.
  void loop_strides() {
    strides.resize(plan.arrays.size());
    for (size_t i = 0; i < plan.arrays.size(); ++i) {
      const PlanArray& a = plan.arrays[i];
      const View& v = *a.view;
      if (a.role == ArrayRole::LOOP) {
        HS_INTERNAL_ASSERT(v.shape == shape) << "operand of shape " << dims_text(v.shape)
                                             << " in a block looping over " << dims_text(shape);
        strides[i] = v.stride;
      } else if (a.role == ArrayRole::REDUCED) {
        Dims expect = shape;
        expect.erase(expect.begin() + axis);
        HS_INTERNAL_ASSERT(v.shape == expect) << "reduction output of shape " << dims_text(v.shape)
                                              << ", expected " << dims_text(expect);
        strides[i] = v.stride;
        strides[i].insert(strides[i].begin() + axis, 0);
      }
    }
    position = contiguous_strides(shape);
  }

  bool addressed_by_loop(size_t i) const {
    const PlanArray& a = plan.arrays[i];
    return a.role != ArrayRole::FLAT && !a.contracted;
  }

  // Reorders dimensions (largest strides outermost), drops extent-1 ones, merges adjacent
  // ones that every array walks as one. Fills extents (loop order) and permutes the strides.
  Dims order_and_collapse() {
    int nd = int(shape.size());
    boost::container::small_vector<int, 8> dims(static_cast<size_t>(nd), 0);
    std::iota(dims.begin(), dims.end(), 0);
    boost::container::small_vector<int64_t, 8> weight(static_cast<size_t>(nd), 0);
    for (size_t i = 0; i < plan.arrays.size(); ++i)
      if (addressed_by_loop(i))
        for (int k = 0; k < nd; ++k)
          weight[size_t(k)] += std::abs(strides[i][size_t(k)]) * dtype_size(plan.arrays[i].dtype);
    std::stable_sort(dims.begin(), dims.end(),
                     [&](int x, int y) { return weight[size_t(x)] > weight[size_t(y)]; });
    // Permute, dropping extent-1 dimensions (never the axis).
    Dims ext;
    int new_axis = -1;
    boost::container::small_vector<Dims, 8> st(plan.arrays.size());
    Dims pos;
    for (int k : dims) {
      if (shape[size_t(k)] == 1 && k != axis) continue;
      if (k == axis) new_axis = int(ext.size());
      ext.push_back(shape[size_t(k)]);
      for (size_t i = 0; i < plan.arrays.size(); ++i)
        if (addressed_by_loop(i)) st[i].push_back(strides[i][size_t(k)]);
      pos.push_back(position[size_t(k)]);
    }
    // Merge level k+1 into level k where every array allows it.
    for (size_t k = 0; k + 1 < ext.size();) {
      bool ok = int(k) != new_axis && int(k + 1) != new_axis;
      for (size_t i = 0; ok && i < plan.arrays.size(); ++i)
        if (addressed_by_loop(i) && st[i][k] != st[i][k + 1] * ext[k + 1]) ok = false;
      if (ok && needs_position && pos[k] != pos[k + 1] * ext[k + 1]) ok = false;
      if (!ok) {
        ++k;
        continue;
      }
      ext[k] *= ext[k + 1];
      ext.erase(ext.begin() + long(k + 1));
      for (size_t i = 0; i < plan.arrays.size(); ++i)
        if (addressed_by_loop(i)) {
          st[i][k] = st[i][k + 1];
          st[i].erase(st[i].begin() + long(k + 1));
        }
      pos[k] = pos[k + 1];
      pos.erase(pos.begin() + long(k + 1));
      if (new_axis > int(k)) --new_axis;
    }
    if (ext.empty()) { // 0-d: one iteration
      ext.push_back(1);
      for (size_t i = 0; i < plan.arrays.size(); ++i)
        if (addressed_by_loop(i)) st[i].push_back(0);
      pos.push_back(0);
    }
    strides = std::move(st);
    position = std::move(pos);
    plan.axis = new_axis;
    plan.ndim = int(ext.size());
    return ext;
  }

  // A FLAT array's own shape collapsed (row-major order kept): extents and strides.
  static std::pair<Dims, Dims> flat_dims(const View& v) {
    Dims e, s;
    for (size_t k = 0; k < v.shape.size(); ++k) {
      if (v.shape[k] == 1) continue;
      if (!e.empty() && s.back() == v.stride[k] * v.shape[k]) {
        e.back() *= v.shape[k];
        s.back() = v.stride[k];
        continue;
      }
      e.push_back(v.shape[k]);
      s.push_back(v.stride[k]);
    }
    return {e, s};
  }

  void choose_split(const Dims& ext) {
    int nd = plan.ndim;
    int split = -1;
    for (int k = 0; k < nd && split < 0; ++k)
      if (k != plan.axis && ext[size_t(k)] >= kSplitMinExtent) split = k;
    const bool can_split_axis = plan.has_reduction && plan.axis >= 0 && ext[size_t(plan.axis)] >= 2;
    if (split < 0 && can_split_axis) split = plan.axis;
    // A small output under an outer axis (a.sum(axis=0) of a tall, narrow matrix): threads
    // splitting the narrow rows would each read every cache line; split the axis instead.
    if (can_split_axis && split > plan.axis) {
      int64_t out_size = 1;
      for (int k = 0; k < nd; ++k)
        if (k != plan.axis) out_size *= ext[size_t(k)];
      if (out_size <= kSmallOutput) split = plan.axis;
    }
    if (split < 0) {
      int64_t best = -1;
      for (int k = 0; k < nd; ++k)
        if (k != plan.axis && ext[size_t(k)] > best) {
          best = ext[size_t(k)];
          split = k;
        }
    }
    plan.split = split < 0 ? 0 : split;
  }

  void choose_chunks(const Dims& ext) {
    int64_t total = 1;
    for (auto e : ext) total *= e;
    int64_t out_size = 1;
    for (int k = 0; k < plan.ndim; ++k)
      if (k != plan.axis) out_size *= ext[size_t(k)];
    plan.chunks = 0;
    if (plan.writes_flat) plan.chunks = 1;
    if (plan.split != plan.axis) return;
    plan.chunks = 1;
    if (!plan.has_reduction || plan.has_scan || total < kParallelMin) return;
    int64_t c = std::min({kMaxChunks, ext[size_t(plan.axis)], total / kChunkMin});
    c = std::min(c, std::max<int64_t>(1, kPartialCap / std::max<int64_t>(1, out_size)));
    plan.chunks = std::max<int64_t>(1, c);
    if (plan.chunks > 1) plan.partial_elems = out_size;
  }

  void assign_slots_and_params(const Dims& ext) {
    const int nd = plan.ndim;
    std::vector<int64_t>& P = plan.params;
    P.assign(ext.begin(), ext.end());
    int nptr = 0;
    bool partial = plan.chunks > 1;
    // Contiguous partial strides over the non-axis levels.
    Dims partial_strides(size_t(nd), 0);
    for (int k = nd, n = 1; k-- > 0;)
      if (k != plan.axis) {
        partial_strides[size_t(k)] = n;
        n *= int(ext[size_t(k)]);
      }
    for (size_t i = 0; i < plan.arrays.size(); ++i) {
      PlanArray& a = plan.arrays[i];
      if (a.contracted) continue;
      a.param = int(P.size());
      switch (a.role) {
      case ArrayRole::LOOP:
        P.insert(P.end(), strides[i].begin(), strides[i].end());
        a.inner = classify(strides[i][size_t(nd - 1)]);
        a.ptr = nptr++;
        break;
      case ArrayRole::REDUCED: {
        const Dims& ks = partial ? partial_strides : strides[i];
        P.insert(P.end(), ks.begin(), ks.end());
        P.push_back(partial ? plan.partial_elems : 0);
        P.insert(P.end(), strides[i].begin(), strides[i].end());
        a.inner = classify(ks[size_t(nd - 1)]);
        a.ptr = nptr++;
        a.final_ptr = nptr++;
        break;
      }
      case ArrayRole::FLAT: {
        auto [fe, fs] = flat_dims(*a.view);
        a.flat_ndim = int(fe.size());
        P.insert(P.end(), fe.begin(), fe.end());
        P.insert(P.end(), fs.begin(), fs.end());
        P.push_back(a.view->size());
        a.ptr = nptr++;
        break;
      }
      }
    }
    plan.ptrs.assign(size_t(nptr), nullptr); // bind_plan fills them
    if (needs_position) {
      plan.position_param = int(P.size());
      P.insert(P.end(), position.begin(), position.end());
      plan.position_inner = classify(position[size_t(nd - 1)]);
    }
    for (PlanConstant& c : plan.constants) { // bind_plan fills the slots
      c.param = int(P.size());
      P.push_back(0);
      P.push_back(0);
    }
  }

  void write_spec() {
    SpecWriter s(plan.spec);
    s += 'd';
    append_int(s, plan.ndim);
    s += 'a';
    append_int(s, plan.axis);
    s += 's';
    append_int(s, plan.split);
    if (plan.position_param >= 0) {
      s += 'p';
      s += class_char(plan.position_inner);
    }
    s += '|';
    for (const PlanArray& a : plan.arrays) {
      append_int(s, int(a.dtype));
      s += "LRF"[int(a.role)];
      if (a.contracted) s += 'c';
      if (a.read) s += 'r';
      if (a.written) s += 'w';
      s += class_char(a.inner);
      if (a.role == ArrayRole::FLAT) append_int(s, a.flat_ndim);
      s += ',';
    }
    s += '|';
    for (const PlanConstant& c : plan.constants) {
      append_int(s, int(c.dtype));
      s += ',';
    }
    s += '|';
    for (const PlanInstr& in : plan.instrs) {
      append_int(s, int(in.op));
      s += ':';
      append_int(s, int(in.in));
      s += ':';
      append_int(s, int(in.out));
      for (const PlanOperand& o : in.operands) {
        s += o.is_array ? 'a' : 'c';
        append_int(s, o.index);
      }
      s += ';';
    }
  }

  // Everything the block's geometry decides, once its arrays are known: loop order and
  // collapse, emptiness, split, chunks, pointer slots and parameters.
  void derive_geometry() {
    loop_strides();
    Dims ext = order_and_collapse();
    check_empty(ext);
    choose_split(ext);
    choose_chunks(ext);
    assign_slots_and_params(ext);
  }

  void check_empty(const Dims& ext) {
    bool non_axis_empty = false, axis_empty = false;
    for (int k = 0; k < plan.ndim; ++k) {
      if (ext[size_t(k)] != 0) continue;
      (k == plan.axis ? axis_empty : non_axis_empty) = true;
    }
    if (non_axis_empty || (axis_empty && !plan.has_reduction)) plan.empty = true;
    if (plan.empty || !axis_empty) return;
    const Program& prog = *block.program;
    for (size_t idx : block.instrs) {
      const Instruction& in = prog.instrs[idx];
      if (in.op == Opcode::MINIMUM_REDUCE || in.op == Opcode::MAXIMUM_REDUCE)
        plan.empty_min_max = &in;
    }
  }
};
} // namespace

int64_t KernelPlan::total() const {
  int64_t n = 1;
  for (int k = 0; k < ndim; ++k) n *= params[size_t(k)];
  return n;
}

void plan_block(const KernelBlock& block, KernelPlan& plan, bool bind_data) {
  // Start from a default plan that keeps the previous one's buffers (their capacity).
  KernelPlan fresh;
  fresh.arrays = std::move(plan.arrays);
  fresh.constants = std::move(plan.constants);
  fresh.constant_uses = std::move(plan.constant_uses);
  fresh.instrs = std::move(plan.instrs);
  fresh.spec = std::move(plan.spec);
  fresh.params = std::move(plan.params);
  fresh.ptrs = std::move(plan.ptrs);
  fresh.arrays.clear();
  fresh.constants.clear();
  fresh.constant_uses.clear();
  fresh.instrs.clear();
  fresh.spec.clear();
  fresh.params.clear();
  fresh.ptrs.clear();
  plan = std::move(fresh);
  Builder b(block, plan);
  b.collect();
  plan.source_axis = b.axis;
  b.derive_geometry();
  b.write_spec();
  const bool bound = bind_plan(block, plan, bind_data);
  HS_INTERNAL_ASSERT(bound) << "a fresh plan's constants do not bind";
}

namespace {
// What of a plan beyond its arrays, constants and instructions goes into the spec.
struct Structure {
  int ndim, axis, split;
  bool position;
  StrideClass position_inner;
  boost::container::small_vector<std::pair<StrideClass, int>, 16> arrays; // inner, flat_ndim
  bool operator==(const Structure&) const = default;
};
Structure structure_of(const KernelPlan& plan) {
  Structure s{plan.ndim, plan.axis, plan.split, plan.position_param >= 0, plan.position_inner, {}};
  if (!s.position) s.position_inner = StrideClass::ANY;
  for (const PlanArray& a : plan.arrays) s.arrays.push_back({a.inner, a.flat_ndim});
  return s;
}
} // namespace

bool replan_block(const KernelBlock& block, KernelPlan& plan, bool bind_data) {
  const Structure before = structure_of(plan);
  const Program& prog = *block.program;
  for (PlanArray& a : plan.arrays) a.view = &prog.instrs[a.instr].view(a.operand);
  plan.empty = false;
  plan.empty_min_max = nullptr;
  plan.partial_elems = 0;
  Builder b(block, plan, Builder::Geometry{});
  b.derive_geometry();
  if (structure_of(plan) == before && bind_plan(block, plan, bind_data)) return true;
  plan_block(block, plan, bind_data);
  return false;
}

bool bind_plan(const KernelBlock& block, KernelPlan& plan, bool bind_data) {
  const Program& prog = *block.program;
  const bool partial = plan.chunks > 1;
  for (PlanArray& a : plan.arrays) {
    const View& v = prog.instrs[a.instr].view(a.operand);
    a.view = &v;
    if (a.contracted) continue;
    char* data = static_cast<char*>(v.base->data);
    HS_INTERNAL_ASSERT(data || v.size() == 0 || !bind_data)
        << "base " << v.base->name << " has no data";
    void* ptr = data ? data + v.offset * dtype_size(a.dtype) : nullptr;
    plan.ptrs[size_t(a.ptr)] = ptr;
    if (a.role == ArrayRole::REDUCED) {
      if (partial) plan.ptrs[size_t(a.ptr)] = nullptr; // the launcher points it at the partials
      plan.ptrs[size_t(a.final_ptr)] = ptr;
    }
  }
  for (const PlanConstant& c : plan.constants) {
    const std::array<int64_t, 2> slots = constant_slots(prog.instrs[c.instr].constant(c.operand));
    plan.params[size_t(c.param)] = slots[0];
    plan.params[size_t(c.param) + 1] = slots[1];
  }
  for (const PlanConstantUse& u : plan.constant_uses) {
    const std::array<int64_t, 2> slots = constant_slots(prog.instrs[u.instr].constant(u.operand));
    const PlanConstant& c = plan.constants[size_t(u.constant)];
    if (slots[0] != plan.params[size_t(c.param)] || slots[1] != plan.params[size_t(c.param) + 1])
      return false;
  }
  return true;
}

KernelPlan plan_block(const KernelBlock& block) {
  KernelPlan plan;
  plan_block(block, plan);
  return plan;
}

} // namespace hassium::plan
