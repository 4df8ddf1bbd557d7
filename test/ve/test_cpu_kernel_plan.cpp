// Tests of ve/cpu/kernel_plan.cpp: loop order, merged dimensions, the split level and the
// chunking chosen for reductions, and what makes two blocks share a kernel (the spec).
#include <catch2/catch.hpp>

#include "test/ve/cpu_fixture.h"
#include "ve/cpu/plan.h"

using namespace hassium;
using namespace hassium::test;

namespace {
cpu::KernelPlan plan_sum(const Dims& shape, int axis) {
  int64_t n = 1;
  for (auto e : shape) n *= e;
  static std::vector<Program> programs; // plans point into them
  programs.reserve(64);
  Program& p = programs.emplace_back();
  Dims out = without(shape, axis);
  int64_t on = 1;
  for (auto e : out) on *= e;
  p.instrs.emplace_back(
      Opcode::ADD_REDUCE,
      std::vector<Operand>{View::contiguous(make_data_base("s", DType::FLOAT64, on), out),
                           View::contiguous(make_data_base("a", DType::FLOAT64, n), shape),
                           axis_const(axis)});
  return cpu::plan_block(KernelBlock{&p, {0}, {}});
}
} // namespace

TEST_CASE("plan: reductions split rows, or their axis through partial results", "[ve][cpu][plan]") {
  auto rows = plan_sum({1000, 5000}, 1); // row sums: threads take rows, registers accumulate
  CHECK(rows.axis == 1);
  CHECK(rows.split == 0);
  CHECK(rows.chunks == 0);
  auto wide = plan_sum({1000, 5000}, 0); // column sums of a wide matrix: threads take columns
  CHECK(wide.axis == 0);
  CHECK(wide.split == 1);
  auto narrow = plan_sum({1 << 16, 16}, 0); // a tall, narrow matrix: the axis, in partials
  CHECK(narrow.split == narrow.axis);
  CHECK(narrow.chunks > 1);
  CHECK(narrow.partial_elems == 16);
  auto full = plan_sum({1 << 20}, 0);
  CHECK(full.chunks == 32);
  auto small = plan_sum({1000}, 0); // too small to split
  CHECK(small.chunks == 1);
}

TEST_CASE("plan: contiguous dimensions merge, the spec ignores sizes and constants",
          "[ve][cpu][plan]") {
  auto a = make_data_base("a", DType::INT32, 24), b = make_data_base("b", DType::INT32, 48);
  auto r = make_data_base("r", DType::INT32, 24);
  Program p1, p2, p3;
  p1.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::contiguous(r, {2, 3, 4}),
                                                           View::contiguous(a, {2, 3, 4}),
                                                           Scalar::of_int(1, DType::INT32)});
  p2.instrs.emplace_back(Opcode::ADD,
                         std::vector<Operand>{View::contiguous(r, {24}), View::contiguous(a, {24}),
                                              Scalar::of_int(7, DType::INT32)});
  p3.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::contiguous(r, {2, 12}),
                                                           view(b, 0, {2, 12}, {24, 2}),
                                                           Scalar::of_int(7, DType::INT32)});
  auto k1 = cpu::plan_block({&p1, {0}, {}}), k2 = cpu::plan_block({&p2, {0}, {}}),
       k3 = cpu::plan_block({&p3, {0}, {}});
  CHECK(k1.ndim == 1);
  CHECK(k1.spec == k2.spec);
  CHECK(k3.spec != k1.spec); // a strided innermost loop is another kernel
  CHECK(k3.arrays[1].inner == cpu::StrideClass::ANY);
}

TEST_CASE("plan: a column-major block loops over its columns outermost", "[ve][cpu][plan]") {
  auto a = make_data_base("a", DType::FLOAT64, 600), r = make_data_base("r", DType::FLOAT64, 600);
  Program p;
  p.instrs.emplace_back(Opcode::NEGATIVE, std::vector<Operand>{view(r, 0, {20, 30}, {1, 20}),
                                                               view(a, 0, {20, 30}, {1, 20})});
  auto k = cpu::plan_block({&p, {0}, {}});
  CHECK(k.ndim == 1); // transposed order makes it one contiguous loop
  CHECK(k.arrays[0].inner == cpu::StrideClass::ONE);
}

TEST_CASE("plan: the element-wise chain a reduction reads has no buffer (contracted)",
          "[ve][cpu][plan]") {
  const int64_t n = 1 << 16;
  auto a = make_data_base("a", DType::FLOAT64, n), b = make_data_base("b", DType::FLOAT64, n);
  auto t = make_temp_base("t", DType::FLOAT64, n), u = make_temp_base("u", DType::FLOAT64, n);
  auto s = make_data_base("s", DType::FLOAT64, 1);
  Program p;
  p.instrs.emplace_back(Opcode::EXP, std::vector<Operand>{View::whole(t), View::whole(a)});
  p.instrs.emplace_back(Opcode::MULTIPLY,
                        std::vector<Operand>{View::whole(u), View::whole(t), View::whole(b)});
  p.instrs.emplace_back(Opcode::ADD_REDUCE,
                        std::vector<Operand>{view(s, 0, {}, {}), View::whole(u), axis_const(0)});
  auto plan = cpu::plan_block(KernelBlock{&p, {0, 1, 2}, {t.get(), u.get()}});
  int buffers = 0;
  for (const auto& arr : plan.arrays) {
    const bool temp = arr.view->base == t || arr.view->base == u;
    CHECK(arr.contracted == temp);
    if (temp) {
      CHECK(arr.ptr == -1);
      CHECK(arr.param == -1);
    } else {
      ++buffers;
    }
  }
  CHECK(buffers == 3);          // a, b and the sum
  CHECK(plan.ptrs.size() == 4); // a, b, the sum's partials and the sum
  CHECK(plan.chunks > 1);       // split over the axis: partial sums per chunk
  CHECK(plan.spec.find("c") != std::string::npos);
}
