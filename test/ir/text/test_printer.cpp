// Tests for ir/printer: canonical text, and print-then-parse for every opcode and signature.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"

using namespace hassium;

namespace {

bool same_view(const View& a, const View& b) {
  return a.base->name == b.base->name && a.base->dtype == b.base->dtype &&
         a.base->nelem == b.base->nelem && a.offset == b.offset && a.shape == b.shape &&
         a.stride == b.stride;
}

// Same bases (by name, dtype, size, order) and instructions; constants equal in dtype and value.
bool same_program(const Program& a, const Program& b) {
  if (a.bases.size() != b.bases.size() || a.instrs.size() != b.instrs.size()) return false;
  for (size_t i = 0; i < a.bases.size(); ++i)
    if (a.bases[i]->name != b.bases[i]->name || a.bases[i]->dtype != b.bases[i]->dtype ||
        a.bases[i]->nelem != b.bases[i]->nelem)
      return false;
  for (size_t k = 0; k < a.instrs.size(); ++k) {
    const Instruction &x = a.instrs[k], &y = b.instrs[k];
    if (x.op != y.op || x.operands.size() != y.operands.size()) return false;
    for (size_t i = 0; i < x.operands.size(); ++i) {
      if (x.is_view(i) != y.is_view(i)) return false;
      if (x.is_view(i) ? !same_view(x.view(i), y.view(i)) : !(x.constant(i) == y.constant(i)))
        return false;
    }
  }
  return true;
}

// A few constants of dtype t, chosen to stress the text form.
std::vector<Scalar> sample_constants(DType t) {
  if (is_bool(t)) return {Scalar::of_bool(true), Scalar::of_bool(false)};
  if (is_signed_int(t)) {
    int bits = dtype_size(t) * 8;
    int64_t lo = bits == 64 ? INT64_MIN : -(int64_t(1) << (bits - 1));
    return {Scalar::of_int(-3, t), Scalar::of_int(lo, t), Scalar::of_int(-lo - 1, t)};
  }
  if (is_unsigned_int(t)) {
    int bits = dtype_size(t) * 8;
    uint64_t hi = bits == 64 ? ~uint64_t(0) : (uint64_t(1) << bits) - 1;
    return {Scalar::of_uint(7, t), Scalar::of_uint(hi, t)};
  }
  double nan = std::numeric_limits<double>::quiet_NaN(), inf = HUGE_VAL;
  if (is_float(t))
    return {Scalar::of_float(2.5, t),     Scalar::of_float(0.1, t),
            Scalar::of_float(-1e-300, t), Scalar::of_float(nan, t),
            Scalar::of_float(-inf, t),    Scalar::of_float(3.0, t),
            Scalar::of_float(-0.0, t),    Scalar::of_float(3.4028234663852886e38, t)};
  return {Scalar::of_complex({1.5, -2}, t), Scalar::of_complex({nan, inf}, t),
          Scalar::of_complex({0.1, 3}, t)};
}

// A valid instruction of `op` with the operand dtypes `sig`; input `as_constant` (if > 0)
// becomes the constant c where the opcode allows it. Bases are added to prog.
Instruction example(Program& prog, Opcode op, const std::vector<DType>& sig, size_t as_constant,
                    const Scalar& c) {
  const OpInfo& info = op_info(op);
  auto base = [&](DType t, int64_t n) {
    auto b = make_base("B" + std::to_string(prog.bases.size()), t, n);
    prog.bases.push_back(b);
    return b;
  };
  std::vector<Operand> ops;
  auto add_view = [&](size_t i, Dims shape) {
    auto b = base(sig[i], 64);
    ops.emplace_back(View::contiguous(b, shape, 3));
  };
  switch (info.family) {
  case Family::REDUCTION:
  case Family::SCAN:
    add_view(0, info.family == Family::SCAN ? Dims{2, 3} : Dims{2});
    add_view(1, {2, 3});
    ops.emplace_back(Scalar::of_int(1));
    break;
  case Family::GENERATOR:
    add_view(0, {5});
    if (op == Opcode::RANDOM) {
      ops.emplace_back(Scalar::of_uint(42));
      ops.emplace_back(Scalar::of_uint(~uint64_t(0)));
    }
    break;
  case Family::INDEXING:
    add_view(0, {4});
    if (as_constant == 1 && op != Opcode::GATHER)
      ops.emplace_back(c);
    else
      add_view(1, {4});
    for (size_t i = 2; i < sig.size(); ++i) add_view(i, {4});
    break;
  case Family::SYSTEM:
    ops.emplace_back(View::whole(base(sig[0], 10)));
    break;
  case Family::EXTENSION:
    if (info.rule == SigRule::REDUCE || info.rule == SigRule::ARG) { // SORT, ARGSORT
      add_view(0, {2, 3});
      add_view(1, {2, 3});
      ops.emplace_back(Scalar::of_int(1));
    } else if (info.rule == SigRule::SEARCH) {
      add_view(0, {2, 3});
      add_view(1, {5});
      add_view(2, {2, 3});
    } else { // MATMUL
      add_view(0, {2, 4});
      add_view(1, {2, 3});
      add_view(2, {3, 4});
    }
    break;
  default:
    for (size_t i = 0; i < sig.size(); ++i) {
      if (i > 0 && i == as_constant)
        ops.emplace_back(c);
      else
        add_view(i, {3, 2});
    }
  }
  return Instruction(op, std::move(ops));
}

void check_round_trip(const Program& prog) {
  std::string text = print_program(prog);
  INFO(text);
  Program back = parse_program(text, "printed");
  CHECK(same_program(prog, back));
  CHECK(print_program(back) == text);
}

} // namespace

TEST_CASE("print then parse gives the same program for every opcode and signature") {
  size_t checked = 0;
  for (const auto& info : all_opcodes()) {
    for (const auto& sig : all_signatures(info.op)) {
      for (size_t pos = 0; pos < sig.size(); ++pos) {
        for (const Scalar& c : sample_constants(sig[pos])) {
          Program prog;
          prog.instrs.push_back(example(prog, info.op, sig, pos, c));
          INFO(print_instruction(prog.instrs.back()));
          REQUIRE_NOTHROW(verify_program(prog));
          check_round_trip(prog);
          ++checked;
        }
      }
    }
  }
  CHECK(checked > 1000);
}

TEST_CASE("constants print a dtype suffix only when the parser would not infer it") {
  auto a = make_base("A", DType::FLOAT32, 4);
  auto i = make_base("I", DType::INT16, 4);
  auto b = make_base("M", DType::BOOL, 4);
  Instruction add(Opcode::ADD,
                  {View::whole(a), View::whole(a), Scalar::of_float(2.5, DType::FLOAT32)});
  CHECK(print_instruction(add) == "ADD A, A, 2.5");
  Instruction cast(Opcode::IDENTITY, {View::whole(a), Scalar::of_int(3, DType::INT16)});
  CHECK(print_instruction(cast) == "IDENTITY A, 3:int16");
  Instruction fill(Opcode::IDENTITY, {View::whole(i), Scalar::of_int(3, DType::INT16)});
  CHECK(print_instruction(fill) == "IDENTITY I, 3");
  // Both inputs constant: one suffix is enough to type the other.
  Instruction less(Opcode::LESS, {View::whole(b), Scalar::of_int(1, DType::INT16),
                                  Scalar::of_int(2, DType::INT16)});
  CHECK(print_instruction(less) == "LESS M, 1, 2:int16");
  Instruction less64(Opcode::LESS, {View::whole(b), Scalar::of_int(1), Scalar::of_int(2)});
  CHECK(print_instruction(less64) == "LESS M, 1, 2");
  // A large uint64 reads back as uint64 by itself; a small one would read as int64.
  Instruction lessu(Opcode::LESS,
                    {View::whole(b), Scalar::of_uint(1), Scalar::of_uint(18446744073709551615u)});
  CHECK(print_instruction(lessu) == "LESS M, 1, 18446744073709551615:uint64");
  Instruction red(Opcode::ADD_REDUCE,
                  {View::whole(a), View::contiguous(a, {2, 2}), Scalar::of_int(1)});
  CHECK(print_instruction(red) == "ADD_REDUCE A, A{0;2,2;2,1}, 1");
}

TEST_CASE("views print bare when whole, else with offset, shape and stride") {
  auto g = make_base("G", DType::FLOAT64, 100);
  CHECK(print_view(View::whole(g)) == "G");
  CHECK(print_view(View::contiguous(g, {100})) == "G");
  CHECK(print_view(View::contiguous(g, {10, 10})) == "G{0;10,10;10,1}");
  View v = View::contiguous(g, {}, 5);
  CHECK(print_view(v) == "G{5;;}");
  v.shape = {4, 3};
  v.stride = {-10, 0};
  v.offset = 99;
  CHECK(print_view(v) == "G{99;4,3;-10,0}");
}

TEST_CASE("views of every kind survive print then parse") {
  auto g = make_base("G", DType::COMPLEX64, 100);
  auto s = make_base("S", DType::COMPLEX64, 7);
  std::vector<std::pair<Dims, Dims>> geoms = {{{}, {}},
                                              {{7}, {1}},
                                              {{7}, {-1}},
                                              {{7}, {0}},
                                              {{3, 7}, {0, 1}},
                                              {{7, 3}, {-3, 11}},
                                              {{0}, {1}},
                                              {{2, 0, 3}, {5, 9, -1}},
                                              {{1, 1, 1, 1, 7}, {0, 0, 0, 0, 1}}};
  Program prog;
  prog.bases = {g, s};
  for (auto& [shape, stride] : geoms) {
    View v;
    v.base = g;
    v.offset = 50;
    v.shape = shape;
    v.stride = stride;
    View out = View::contiguous(g, shape, 0);
    prog.instrs.emplace_back(Opcode::CONJ, std::vector<Operand>{out, v});
  }
  prog.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(s)});
  prog.instrs.emplace_back(Opcode::FREE, std::vector<Operand>{View::whole(s)});
  check_round_trip(prog);
}

TEST_CASE("print_program declares bases in order, including undeclared ones in use") {
  auto a = make_base("A", DType::INT32, 3);
  auto b = make_base("B", DType::INT32, 3);
  Program prog;
  prog.bases = {b};
  prog.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(b),
                                                             Scalar::of_int(1, DType::INT32)});
  CHECK(print_program(prog) == ".base B int32 3\n.base A int32 3\nADD A, B, 1\n");
}
