// Tests for core/opcode: the generated table and signature checks.
#include <catch2/catch.hpp>

#include <set>

#include "core/opcode.h"

using namespace hassium;

TEST_CASE("every opcode name parses back to itself") {
  for (const auto& info : all_opcodes()) {
    auto op = parse_opcode(info.name);
    REQUIRE(op);
    CHECK(*op == info.op);
    CHECK(&op_info(info.op) == &info);
  }
  CHECK_FALSE(parse_opcode("ADDD"));
}

TEST_CASE("every family of the design is covered") {
  std::set<Family> seen;
  for (const auto& info : all_opcodes()) seen.insert(info.family);
  CHECK(seen.size() == 7);
}

TEST_CASE("all_signatures pass check_signature, and only they") {
  for (const auto& info : all_opcodes()) {
    auto sigs = all_signatures(info.op);
    CHECK_FALSE(sigs.empty());
    for (const auto& s : sigs) CHECK(check_signature(info.op, s) == "");
  }
  using D = DType;
  std::vector<D> bad = {D::FLOAT64, D::FLOAT64, D::INT32};
  CHECK(check_signature(Opcode::ADD, bad) ==
        "ADD: bad type signature (float64, float64, int32); expected (float64, float64, float64)");
  std::vector<D> shifts = {D::FLOAT64, D::FLOAT64, D::FLOAT64};
  CHECK(check_signature(Opcode::LEFT_SHIFT, shifts).find("float64 is not one of int8|") !=
        std::string::npos);
  std::vector<D> two = {D::FLOAT64, D::FLOAT64};
  CHECK(check_signature(Opcode::ADD, two) == "ADD takes 3 operands, got 2");
  std::vector<D> cmp = {D::BOOL, D::INT32, D::INT32};
  CHECK(check_signature(Opcode::LESS, cmp) == "");
  std::vector<D> absc = {D::FLOAT32, D::COMPLEX64};
  CHECK(check_signature(Opcode::ABSOLUTE, absc) == "");
  std::vector<D> cast = {D::INT8, D::COMPLEX128};
  CHECK(check_signature(Opcode::IDENTITY, cast) == "");
}

TEST_CASE("constant dtype inference follows the signature") {
  using D = DType;
  std::vector<std::optional<D>> k = {D::FLOAT32, D::FLOAT32, std::nullopt};
  CHECK(expected_constant_dtype(Opcode::ADD, 2, k) == D::FLOAT32);
  std::vector<std::optional<D>> cmp = {D::BOOL, D::INT16, std::nullopt};
  CHECK(expected_constant_dtype(Opcode::LESS, 2, cmp) == D::INT16);
  std::vector<std::optional<D>> red = {D::FLOAT64, D::FLOAT64, std::nullopt};
  CHECK(expected_constant_dtype(Opcode::ADD_REDUCE, 2, red) == D::INT64);
  std::vector<std::optional<D>> fill = {D::UINT8, std::nullopt};
  CHECK(expected_constant_dtype(Opcode::IDENTITY, 1, fill) == D::UINT8);
}

TEST_CASE("every *_AT accumulation names the element-wise opcode it applies") {
  int accumulations = 0;
  for (const OpInfo& info : all_opcodes()) {
    INFO(info.name);
    const std::optional<Opcode> combiner = at_combiner(info.op);
    CHECK(combiner.has_value() == info.name.ends_with("_AT"));
    if (!combiner) continue;
    ++accumulations;
    const OpInfo& c = op_info(*combiner);
    CHECK(std::string(c.name) + "_AT" == info.name);
    CHECK(c.family == Family::ELEMENTWISE);
    CHECK(c.rule == SigRule::SAME);
    CHECK((info.types & ~c.types) == 0); // every dtype the combiner takes
    CHECK(info.family == Family::INDEXING);
    CHECK(info.rule == SigRule::SCATTER);
    CHECK(writes_indexed_only(info.op));
    CHECK(at_accumulation(*combiner) == info.op);
  }
  CHECK_FALSE(at_accumulation(Opcode::DIVIDE).has_value());
  CHECK(accumulations == 5);
  CHECK(writes_indexed_only(Opcode::SCATTER));
  CHECK(writes_indexed_only(Opcode::COND_SCATTER));
  CHECK_FALSE(writes_indexed_only(Opcode::GATHER));
  CHECK_FALSE(writes_indexed_only(Opcode::ADD));
}
