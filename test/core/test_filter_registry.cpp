// Tests for core/filter_registry: registration, resolution in list order, unknown names.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/filter_registry.h"

using namespace hassium;

TEST_CASE("filters resolve by name in list order") {
  register_filter("test_keep", [](Program p) { return p; });
  register_filter("test_clear", [](Program p) {
    p.instrs.clear();
    return p;
  });
  auto names = filter_names();
  CHECK(std::find(names.begin(), names.end(), "test_keep") != names.end());
  auto fs = resolve_filters(" test_clear ,test_keep,, ");
  REQUIRE(fs.size() == 2);
  CHECK(fs[0].name == "test_clear");
  CHECK(fs[1].name == "test_keep");
  CHECK(resolve_filters("").empty());
  Program p;
  auto a = make_base("a", DType::BOOL, 1);
  p.instrs.emplace_back(Opcode::SYNC, std::vector<Operand>{View::whole(a)});
  CHECK(fs[0].fn(p).instrs.empty());
  CHECK(fs[1].fn(p).instrs.size() == 1);
}

TEST_CASE("an unknown filter name lists the valid ones") {
  register_filter("test_keep", [](Program p) { return p; });
  CHECK_THROWS_AS(resolve_filters("test_keep, nope"), UserError);
  CHECK_THROWS_WITH(resolve_filters("nope"),
                    Catch::Contains("unknown filter 'nope'") && Catch::Contains("test_keep"));
}
