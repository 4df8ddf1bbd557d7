// The C++ frontend's link to the Runtime: base ownership (FREE at the last reference), building
// and recording instructions, the lazily installed stack and the flush threshold.
#pragma once

#include <string>
#include <vector>

#include "core/instruction.h"
#include "hassium/detail/node.h"

namespace hassium::detail {

class base_ref {
public:
  explicit base_ref(BasePtr b) : base(std::move(b)) {}
  base_ref(const base_ref&) = delete;
  base_ref& operator=(const base_ref&) = delete;
  // Records FREE of the base when a recorded instruction ever named it.
  ~base_ref();

  // Written by an instruction that has not run yet: no flush of this frontend since then.
  bool dirty() const;

  BasePtr base;
  bool used = false;          // named by a recorded instruction (the runtime must hear it died)
  int64_t written_epoch = -1; // the flush epoch (see session.cpp) of its last recorded write
};

// The core View of a node, and a node of like's base and dtype with v's geometry (the view
// arithmetic of bridge/common works on Views).
View to_view(const node& n);
node with_view(const node& like, const View& v);

// An instruction under construction; out() and in() mark the bases' flags.
class instr {
public:
  explicit instr(Opcode op) : ins_(op, {}) {}
  instr& out(const node& n);
  instr& in(const node& n);
  instr& in(const Scalar& s);
  Instruction take() { return std::move(ins_); }

private:
  Instruction ins_;
};

// Appends to the Runtime's pending program (installing the stack on first use); flushes once
// more than the flush threshold are pending, at the loop phase of the previous flush when
// [cxx] align_flushes is on (core/flush_policy.h: at most twice the threshold).
void record(instr&& i);

// The constant as dtype t. An integer constant must fit an integer t (NumPy raises
// OverflowError for Python ints out of range); other conversions are C++'s. (elementwise.cpp)
Scalar constant_as(const Scalar& s, DType t);

// "(3, 4)", as NumPy prints shapes.
std::string shape_text(const shape_type& s);
// An axis in [-ndim, ndim) as a position in [0, ndim), else a hassium::error naming both.
int normalize_axis(int axis, int ndim);

} // namespace hassium::detail
