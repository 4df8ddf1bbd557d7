// Tests of ve/cpu/kernel_plan.cpp: loop order, merged dimensions, the split level and the
// chunking chosen for reductions, and what makes two blocks share a kernel (the spec).
#include <catch2/catch.hpp>

#include <limits>
#include <random>

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

namespace {
// A block of the same structure at any geometry: r = a * 2 + b (b broadcast along axis 0 when
// asked), s = sum(r, axis), over a[rows, cols] with a's strides row-major or transposed, an
// optional extent-1 middle dimension, everything in fresh bases.
struct GeometryBlock {
  Program p;
  GeometryBlock(int64_t rows, int64_t cols, bool transposed, bool broadcast, bool middle,
                int axis) {
    const Dims shape = middle ? Dims{rows, 1, cols} : Dims{rows, cols};
    const Dims a_stride = transposed ? (middle ? Dims{1, 0, rows} : Dims{1, rows})
                                     : (middle ? Dims{cols, cols, 1} : Dims{cols, 1});
    auto a = make_data_base("a", DType::FLOAT64, rows * cols);
    auto b = make_data_base("b", DType::FLOAT64, rows * cols);
    auto r = make_data_base("r", DType::FLOAT64, rows * cols);
    const int nd = int(shape.size());
    const int ax = axis < 0 ? -1 : (axis == 0 ? 0 : nd - 1);
    Dims out_shape = ax < 0 ? shape : without(shape, ax);
    int64_t out_n = 1;
    for (int64_t e : out_shape) out_n *= e;
    auto s = make_data_base("s", DType::FLOAT64, std::max<int64_t>(out_n, 1));
    Dims b_stride = middle ? Dims{cols, cols, 1} : Dims{cols, 1};
    if (broadcast) b_stride[0] = 0;
    p.instrs.emplace_back(Opcode::MULTIPLY,
                          std::vector<Operand>{View::contiguous(r, shape),
                                               view(a, 0, shape, a_stride),
                                               Scalar::of_float(2.0, DType::FLOAT64)});
    p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::contiguous(r, shape),
                                                            View::contiguous(r, shape),
                                                            view(b, 0, shape, b_stride)});
    if (ax >= 0)
      p.instrs.emplace_back(Opcode::ADD_REDUCE,
                            std::vector<Operand>{View::contiguous(s, out_shape),
                                                 View::contiguous(r, shape), axis_const(ax)});
  }
  KernelBlock block() const {
    KernelBlock kb{&p, {0, 1}, {}};
    if (p.instrs.size() == 3) kb.instrs.push_back(2);
    return kb;
  }
};
} // namespace

TEST_CASE("plan: a block planned again for other extents is the plan made afresh",
          "[ve][cpu][plan]") {
  // replan_block on a plan of the same structure at another geometry: when it says the
  // structure held, every per-call value equals plan_block's and so does the spec; when not,
  // the plan is plan_block's.
  std::mt19937 rng(20261128);
  auto extent = [&] {
    const int64_t choices[] = {1, 2, 3, 7, 64, 300, 1 << 15, 70000};
    return choices[rng() % 8];
  };
  int same = 0, changed = 0;
  for (int round = 0; round < 400; ++round) {
    const bool transposed = rng() % 2, broadcast = rng() % 2, middle = rng() % 2;
    const int axis = int(rng() % 3) - 1;
    auto small = [&](int64_t e) { return e > 4096 ? e / 512 : e; };
    int64_t r1 = extent(), c1 = small(extent()), r2 = extent(), c2 = small(extent());
    if (rng() % 2) r2 = r1; // only one extent moves, sometimes
    GeometryBlock g1(r1, c1, transposed, broadcast, middle, axis),
        g2(r2, c2, transposed, broadcast, middle, axis);
    cpu::KernelPlan planned = cpu::plan_block(g1.block());
    const std::string spec1 = planned.spec;
    const bool held = cpu::replan_block(g2.block(), planned);
    cpu::KernelPlan fresh = cpu::plan_block(g2.block());
    INFO("round " << round << ": " << r1 << "x" << c1 << " -> " << r2 << "x" << c2
                  << (transposed ? " transposed" : "") << (broadcast ? " broadcast" : "")
                  << (middle ? " middle" : "") << " axis " << axis);
    CHECK(held == (fresh.spec == spec1));
    if (held)
      CHECK(planned.spec == spec1); // left as it was
    else
      CHECK(planned.spec == fresh.spec);
    CHECK(planned.params == fresh.params);
    CHECK(planned.ptrs == fresh.ptrs);
    CHECK(planned.ndim == fresh.ndim);
    CHECK(planned.axis == fresh.axis);
    CHECK(planned.split == fresh.split);
    CHECK(planned.chunks == fresh.chunks);
    CHECK(planned.partial_elems == fresh.partial_elems);
    CHECK(planned.empty == fresh.empty);
    REQUIRE(planned.arrays.size() == fresh.arrays.size());
    for (size_t i = 0; i < fresh.arrays.size(); ++i) {
      CHECK(planned.arrays[i].view == fresh.arrays[i].view);
      CHECK(planned.arrays[i].inner == fresh.arrays[i].inner);
      CHECK(planned.arrays[i].ptr == fresh.arrays[i].ptr);
      CHECK(planned.arrays[i].param == fresh.arrays[i].param);
    }
    (held ? same : changed) += 1;
  }
  CHECK(same > 100);
  CHECK(changed > 50);
}

TEST_CASE("plan: equal constants are one parameter, and a bind checks they still are",
          "[ve][cpu][plan]") {
  // r = a * x + y * a (x, y constants), t contracted: x and y share one parameter when their
  // dtype and bits agree (-0.0 is not 0.0; one NaN's bits are one value), and a plan made
  // sharing them binds another program only where they still agree.
  auto a = make_data_base("a", DType::FLOAT64, 64), r = make_data_base("r", DType::FLOAT64, 64);
  auto t = make_temp_base("t", DType::FLOAT64, 64);
  auto program = [&](Scalar x, Scalar y) {
    Program p;
    View va = View::contiguous(a, {64}), vr = View::contiguous(r, {64}),
         vt = View::contiguous(t, {64});
    p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{vt, va, x});
    p.instrs.emplace_back(Opcode::MULTIPLY, std::vector<Operand>{vr, va, y});
    p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{vr, vt, vr});
    return p;
  };
  auto block = [&](const Program& p) { return KernelBlock{&p, {0, 1, 2}, {t.get()}}; };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Program same = program(Scalar::of_float(2.5), Scalar::of_float(2.5));
  Program other = program(Scalar::of_float(2.5), Scalar::of_float(3.0));
  Program zeros = program(Scalar::of_float(0.0), Scalar::of_float(-0.0));
  Program nans = program(Scalar::of_float(nan), Scalar::of_float(nan));
  Program ints = program(Scalar::of_int(2), Scalar::of_float(2.0)); // other dtypes: apart
  cpu::KernelPlan shared = cpu::plan_block(block(same));
  CHECK(shared.constants.size() == 1);
  CHECK(shared.constant_uses.size() == 1);
  CHECK(shared.instrs[0].operands[2].index == shared.instrs[1].operands[2].index);
  cpu::KernelPlan apart = cpu::plan_block(block(other));
  CHECK(apart.constants.size() == 2);
  CHECK(apart.constant_uses.empty());
  CHECK(apart.spec != shared.spec); // another kernel
  CHECK(cpu::plan_block(block(zeros)).constants.size() == 2);
  CHECK(cpu::plan_block(block(nans)).constants.size() == 1);
  CHECK(cpu::plan_block(block(ints)).constants.size() == 2);

  // Bound to a program whose constants agree (other values): it holds; where they differ: not.
  Program same2 = program(Scalar::of_float(-1.0), Scalar::of_float(-1.0));
  cpu::KernelPlan rebound = shared;
  CHECK(cpu::bind_plan(block(same2), rebound));
  CHECK(rebound.params == cpu::plan_block(block(same2)).params);
  CHECK_FALSE(cpu::bind_plan(block(other), rebound));
  // Planned again for a program whose constants differ: the fresh plan, spec included.
  cpu::KernelPlan replanned = shared;
  CHECK_FALSE(cpu::replan_block(block(other), replanned));
  CHECK(replanned.spec == apart.spec);
  CHECK(replanned.params == apart.params);
  // A plan made with the constants apart serves programs whose constants agree.
  cpu::KernelPlan wider = apart;
  CHECK(cpu::replan_block(block(same2), wider));
  CHECK(wider.constants.size() == 2);
}
