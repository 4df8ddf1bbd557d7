// Bytes -> a small valid Program for fuzz_fuser: bases of a few dtypes, 1-D and 2-D views.
//
// Every byte is a choice (a missing byte reads as 0). The program has 1-5 bases (some holding
// data, the others created by their first write), up to kMaxInstrs instructions over two loop
// shapes: element-wise ops (in place, mixed dtypes through IDENTITY, comparisons, WHERE,
// RANGE), reductions and scans along an axis, GATHER, FREE and SYNC. Views have offsets,
// strides of -2..3 (0 = broadcast), row-major or reversed layouts, extents of 0, and are often
// reused, so identical, overlapping and disjoint views all occur. An instruction the verifier
// rejects (a reduction whose input overlaps its output, ...) is left out.
//
// `salt` shifts every view's offset (within the base) without changing any other choice, so
// decode(bytes, s) for two salts gives two programs with the same structure and mostly the
// same merge-cache key but different overlaps: the cache's check of a stored partition meets
// programs it was not computed for.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/program.h"
#include "ir/text/verifier.h"

namespace hassium::fuzz {

inline constexpr unsigned kMaxInstrs = 10;

// The input as a stream of choices.
class Choices {
public:
  Choices(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  // A number in [0, n) taken from the next byte (0 when n <= 1, without using a byte).
  unsigned pick(unsigned n) {
    if (n <= 1) return 0;
    unsigned b = pos_ < size_ ? data_[pos_] : 0;
    ++pos_;
    return b % n;
  }
  bool done() const { return pos_ >= size_; }

private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

class ProgramDecoder {
public:
  ProgramDecoder(Choices& in, unsigned salt, std::string prefix)
      : in_(in), salt_(salt), prefix_(std::move(prefix)) {}

  Program decode() {
    static double dummy[1];
    static const DType kTypes[] = {DType::FLOAT64, DType::FLOAT64,   DType::FLOAT32,
                                   DType::INT64,   DType::INT32,     DType::BOOL,
                                   DType::BOOL,    DType::COMPLEX128};
    unsigned nbases = 1 + in_.pick(5);
    for (unsigned i = 0; i < nbases; ++i) {
      DType t = kTypes[in_.pick(8)];
      auto b = make_base(prefix_ + char('A' + i), t, 1 + in_.pick(12));
      if (in_.pick(4) == 0) b->data = dummy;
      p_.bases.push_back(b);
      live_.push_back(b);
    }
    for (Dims& s : shapes_) {
      unsigned kind = in_.pick(8);
      if (kind < 4)
        s = {int64_t(1 + in_.pick(5))};
      else if (kind < 7)
        s = {int64_t(1 + in_.pick(3)), int64_t(1 + in_.pick(3))};
      else
        s = in_.pick(2) ? Dims{0} : Dims{2, 0}; // an empty loop
    }
    unsigned n = 1 + in_.pick(kMaxInstrs);
    for (unsigned i = 0; i < n && !in_.done() && !live_.empty(); ++i) instruction();
    return std::move(p_); // valid: each instruction verified, no base used after its FREE
  }

private:
  BasePtr live_base() { return live_[in_.pick(unsigned(live_.size()))]; }
  // A live base of dtype t, or null.
  BasePtr live_base(DType t) {
    std::vector<BasePtr> c;
    for (const auto& b : live_)
      if (b->dtype == t) c.push_back(b);
    return c.empty() ? nullptr : c[in_.pick(unsigned(c.size()))];
  }
  bool is_live(const Base* b) const {
    for (const auto& x : live_)
      if (x.get() == b) return true;
    return false;
  }

  // A view of `shape` inside base b; its strides and (salted) offset come from the input. An
  // output takes stride 1 where an input may take 0 (the verifier refuses a broadcast write).
  View new_view(const BasePtr& b, const Dims& shape, bool output = false) {
    static const int64_t kStrides[] = {1, -1, 0, 2, -2, 3};
    View v;
    v.base = b;
    v.shape = shape;
    v.stride.assign(shape.size(), 0);
    unsigned mode = in_.pick(4);
    int64_t step = 1;
    for (size_t k = shape.size(); k-- > 0;) {
      if (mode < 2)
        v.stride[k] = step;
      else if (mode == 2)
        v.stride[k] = -step;
      else
        v.stride[k] = kStrides[in_.pick(6)];
      if (output && v.stride[k] == 0) v.stride[k] = 1;
      step *= std::max<int64_t>(shape[k], 1);
    }
    bool empty = false;
    int64_t lo = 0, hi = 0;
    for (size_t k = 0; k < shape.size(); ++k) {
      empty = empty || shape[k] == 0;
      int64_t reach = v.stride[k] * (std::max<int64_t>(shape[k], 1) - 1);
      (reach < 0 ? lo : hi) += reach;
    }
    int64_t first = -lo, last = b->nelem - 1 - hi;
    if (empty) {
      first = 0, last = b->nelem;
    } else if (first > last) { // does not fit: broadcast instead (refused for an output)
      std::fill(v.stride.begin(), v.stride.end(), 0);
      first = 0, last = b->nelem - 1;
    }
    v.offset = first + int64_t((in_.pick(256) + salt_) % uint64_t(last - first + 1));
    pool_.push_back(v);
    return v;
  }
  // A view of `shape` of a live base of dtype t: one used before (often) or a new one.
  std::optional<View> view(DType t, const Dims& shape) {
    if (in_.pick(2) == 0) {
      std::vector<size_t> c;
      for (size_t k = 0; k < pool_.size(); ++k)
        if (pool_[k].dtype() == t && pool_[k].shape == shape && is_live(pool_[k].base.get()))
          c.push_back(k);
      if (!c.empty()) return pool_[c[in_.pick(unsigned(c.size()))]];
    }
    BasePtr b = live_base(t);
    if (!b) return std::nullopt;
    return new_view(b, shape);
  }
  static Scalar constant(DType t, unsigned k) { return Scalar::of_int(int64_t(k)).cast(t); }
  // An element-wise input of dtype t for the output `out`: a constant, `out` itself (an
  // in-place update), or a view; one that overlaps `out` without being identical becomes `out`.
  Operand input(DType t, const View& out) {
    unsigned c = in_.pick(8);
    if (c == 0) return constant(t, in_.pick(4));
    if (c == 1 && out.dtype() == t) return out;
    std::optional<View> v = view(t, out.shape);
    if (!v) return constant(t, in_.pick(4));
    if (overlaps(*v, out) && !v->identical(out)) {
      if (out.dtype() == t) return out;
      return constant(t, 0);
    }
    return *v;
  }
  // The verifier's rule for outputs: no stride 0 along an extent > 1.
  static bool writable(const View& v) {
    for (size_t k = 0; k < v.shape.size(); ++k)
      if (v.stride[k] == 0 && v.shape[k] > 1) return false;
    return true;
  }
  // Adds the instruction if the verifier accepts it. Most invalid ones are avoided before (a
  // rejection costs an exception).
  void emit(Opcode op, std::vector<Operand> operands) {
    Instruction ins(op, std::move(operands));
    try {
      verify_instruction(ins, p_.instrs.size());
    } catch (const UserError&) {
      return;
    }
    p_.instrs.push_back(std::move(ins));
  }

  void instruction() {
    static const Opcode kBinary[] = {Opcode::ADD, Opcode::MULTIPLY, Opcode::SUBTRACT,
                                     Opcode::MAXIMUM, Opcode::BITWISE_AND};
    unsigned kind = in_.pick(16);
    if (kind >= 14) { // FREE or SYNC of a live base
      size_t k = in_.pick(unsigned(live_.size()));
      BasePtr b = live_[k];
      if (kind == 15) live_.erase(live_.begin() + long(k));
      return emit(kind == 15 ? Opcode::FREE : Opcode::SYNC, {View::whole(b)});
    }
    const Dims& shape = shapes_[in_.pick(4) == 0 ? 1 : 0];
    BasePtr ob = live_base();
    const DType t = ob->dtype;
    if (kind >= 10 && kind <= 12) { // reduction (10, 11) or scan (12) along an axis
      std::optional<View> in = view(t, shape);
      if (!in) return;
      int64_t axis = in_.pick(unsigned(shape.size()));
      Dims oshape = shape;
      if (kind != 12) oshape.erase(oshape.begin() + axis);
      View out = new_view(ob, oshape, true);
      if (!writable(out) || overlaps(*in, out)) return; // the verifier wants them disjoint
      Opcode op =
          kind == 12 ? Opcode::ADD_ACCUMULATE
                     : (kind == 11 && !is_complex(t) ? Opcode::MAXIMUM_REDUCE : Opcode::ADD_REDUCE);
      return emit(op, {out, *in, Scalar::of_int(axis)});
    }
    if (kind == 7 && t != DType::BOOL) kind = 0; // comparisons write bool
    std::optional<View> reused;
    if (in_.pick(3) == 0) reused = view(t, shape);
    View out = reused && writable(*reused) ? *reused : new_view(ob, shape, true);
    if (!writable(out)) return;
    switch (kind) {
    case 5:
    case 6: { // IDENTITY: copy or cast from any live base
      BasePtr ib = live_base();
      return emit(Opcode::IDENTITY, {out, input(ib->dtype, out)});
    }
    case 7: { // comparison into a bool output
      DType it = live_base()->dtype;
      Opcode op = is_complex(it) ? Opcode::EQUAL : Opcode::LESS;
      return emit(op, {out, input(it, out), input(it, out)});
    }
    case 8: { // WHERE(cond, a, b)
      Operand cond = input(DType::BOOL, out);
      return emit(Opcode::WHERE, {out, cond, input(t, out), input(t, out)});
    }
    case 9:
      if (!dtype_in(t, op_info(Opcode::RANGE).types))
        return emit(Opcode::IDENTITY, {out, constant(t, 1)});
      return emit(Opcode::RANGE, {out});
    case 13: { // GATHER: out[i] = in.flat[index[i]], never fused
      std::optional<View> from = view(t, shapes_[1]);
      std::optional<View> index = view(DType::INT64, out.shape);
      if (!from || !index || overlaps(*from, out)) return;
      return emit(Opcode::GATHER, {out, *from, *index});
    }
    default: { // 0-4: binary element-wise
      Opcode op = kBinary[in_.pick(5)];
      if (!dtype_in(t, op_info(op).types)) op = Opcode::ADD;
      Operand a = input(t, out);
      return emit(op, {out, a, input(t, out)});
    }
    }
  }

  Choices& in_;
  unsigned salt_;
  std::string prefix_;
  Program p_;
  std::vector<BasePtr> live_;
  std::vector<View> pool_;
  Dims shapes_[2];
};

// The program of `data` (prefix names its bases), with offsets shifted by `salt`.
inline Program decode_program(const uint8_t* data, size_t size, unsigned salt,
                              const std::string& prefix) {
  Choices in(data, size);
  return ProgramDecoder(in, salt, prefix).decode();
}

} // namespace hassium::fuzz
