// Programs for the fusion tests, built in C++: a small builder and the paper's Fig. 3.
#pragma once

#include <string>
#include <vector>

#include "core/program.h"

namespace hassium::test {

struct ProgramBuilder {
  Program p;

  BasePtr base(const std::string& name, int64_t nelem, DType t = DType::FLOAT64) {
    auto b = make_base(name, t, nelem);
    p.bases.push_back(b);
    return b;
  }
  // A view of `shape` elements from `offset` with `stride` (element strides, 0 = broadcast).
  static View view(const BasePtr& b, int64_t offset, Dims shape, Dims stride) {
    View v;
    v.base = b;
    v.offset = offset;
    v.shape = std::move(shape);
    v.stride = std::move(stride);
    return v;
  }
  // A 1-D view of `len` elements from `offset` with `stride`.
  static View view(const BasePtr& b, int64_t offset, int64_t len, int64_t stride = 1) {
    return view(b, offset, Dims{len}, Dims{stride});
  }
  static View whole(const BasePtr& b) { return View::whole(b); }
  static Scalar f64(double x) { return Scalar::of_float(x); }

  void op(Opcode op, std::vector<Operand> operands) {
    p.instrs.emplace_back(op, std::move(operands));
  }
  void free(const BasePtr& b) { op(Opcode::FREE, {whole(b)}); }
  void sync(const BasePtr& b) { op(Opcode::SYNC, {whole(b)}); }
};

// An instruction as text for failure messages: `ADD A{0;4;1}, A{0;4;1}, 2`.
inline std::string describe(const Instruction& ins) {
  std::string s(op_name(ins.op));
  for (size_t k = 0; k < ins.operands.size(); ++k) {
    s += k ? ", " : " ";
    if (ins.is_view(k)) {
      const View& v = ins.view(k);
      s += v.base->name + "{" + std::to_string(v.offset) + ";";
      for (size_t d = 0; d < v.shape.size(); ++d) s += (d ? "," : "") + std::to_string(v.shape[d]);
      s += ";";
      for (size_t d = 0; d < v.stride.size(); ++d)
        s += (d ? "," : "") + std::to_string(v.stride[d]);
      s += "}";
    } else {
      s += ins.constant(k).value_text();
    }
  }
  return s;
}

// The paper's Fig. 3b (Sec. IV-A) with A, B, T of 4 and D, E of 5 float64 elements:
// the bohrium cost is 94 elements (752 bytes) for singleton and 38 (304 bytes) for optimal.
inline Program paper_fig3() {
  ProgramBuilder b;
  auto A = b.base("A", 4), B = b.base("B", 4), D = b.base("D", 5), E = b.base("E", 5),
       T = b.base("T", 4);
  using P = ProgramBuilder;
  b.op(Opcode::IDENTITY, {P::whole(A), P::f64(0)});                         // 1
  b.op(Opcode::IDENTITY, {P::whole(B), P::f64(0)});                         // 2
  b.op(Opcode::IDENTITY, {P::whole(D), P::f64(0)});                         // 3
  b.op(Opcode::IDENTITY, {P::whole(E), P::f64(0)});                         // 4
  b.op(Opcode::ADD, {P::whole(A), P::whole(A), P::view(D, 0, 4)});          // 5
  b.op(Opcode::IDENTITY, {P::whole(A), P::view(D, 0, 4)});                  // 6
  b.op(Opcode::ADD, {P::whole(B), P::whole(B), P::view(E, 0, 4)});          // 7
  b.op(Opcode::IDENTITY, {P::whole(B), P::view(E, 0, 4)});                  // 8
  b.op(Opcode::MULTIPLY, {P::whole(T), P::whole(A), P::whole(B)});          // 9
  b.op(Opcode::MAXIMUM, {P::view(D, 1, 4), P::whole(T), P::view(E, 1, 4)}); // 10
  b.op(Opcode::MINIMUM, {P::view(E, 1, 4), P::whole(T), P::view(D, 1, 4)}); // 11
  b.free(A);                                                                // 12
  b.free(B);                                                                // 13
  b.free(E);                                                                // 14
  b.free(T);                                                                // 15
  b.sync(D);                                                                // 16
  b.free(D);                                                                // 17
  return std::move(b.p);
}

} // namespace hassium::test
