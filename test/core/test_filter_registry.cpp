// Tests for core/filter_registry: registration, resolution in list order, unknown names.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "core/filter_registry.h"

using namespace hassium;

namespace {
// Adds the two test filters once per process (a name registered twice is an error).
void add_test_filters() {
  static const bool added = [] {
    filter_registry().add({"test_keep", [](Program p) { return p; }, "keeps the program"});
    filter_registry().add({"test_clear",
                           [](Program p) {
                             p.instrs.clear();
                             return p;
                           },
                           "drops every instruction"});
    return true;
  }();
  (void)added;
}
} // namespace

TEST_CASE("filters resolve by name in list order") {
  add_test_filters();
  auto names = filter_registry().names();
  CHECK(std::find(names.begin(), names.end(), "test_keep") != names.end());
  CHECK(filter_registry().doc("test_clear") == "drops every instruction");
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
  add_test_filters();
  CHECK_THROWS_AS(resolve_filters("test_keep, nope"), UserError);
  CHECK_THROWS_WITH(resolve_filters("nope"), Catch::Contains("unknown filter 'nope'; valid: ") &&
                                                 Catch::Contains("test_keep, test_clear"));
}

TEST_CASE("a filter name registered twice is an internal error") {
  add_test_filters();
  CHECK_THROWS_AS(filter_registry().add({"test_keep", [](Program p) { return p; }, ""}),
                  InternalError);
  CHECK(filter_registry().find("test_keep").doc == "keeps the program"); // the first stays
}
