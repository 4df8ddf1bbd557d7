// Tests for filters/split_reduction: before/after cases (options per case) and the config.
#include <catch2/catch.hpp>

#include "core/config.h"
#include "filter_cases.h"
#include "filters/filters.h"

using namespace hassium;

TEST_CASE("split_reduction: before/after cases") {
  for (const auto& name : test::filter_cases("split_reduction")) {
    SplitReductionOptions o;
    o.min_length = 4;
    o.keep_fusion = name != "keep_fusion" ? false : true;
    o.reassociate_floats = name != "exact_only";
    test::check_filter_case("split_reduction", name,
                            [&](Program p) { return split_reduction(p, o); });
  }
}

TEST_CASE("split_reduction: long axes only, rows of about sqrt(length)") {
  Program p = parse_program(".base A int64 1000\n.base S int64 1\nADD_REDUCE S{0;;}, A, 0\n");
  SplitReductionOptions o;
  o.min_length = 1001;
  CHECK(split_reduction(p, o).instrs.size() == 1);
  o.min_length = 1000;
  Program q = split_reduction(p, o);
  REQUIRE(q.instrs.size() == 4); // 32 rows of 31, the 8 left in slot 32, the sum, FREE
  CHECK(print_instruction(q.instrs[0]) == "ADD_REDUCE _sr0{0;32;1}, A{0;32,31;31,1}, 1");
  CHECK(print_instruction(q.instrs[1]) == "ADD_REDUCE _sr0{32;;}, A{992;8;1}, 0");
  CHECK_NOTHROW(verify_program(q));
}

TEST_CASE("split_reduction: options from the configuration") {
  Config c = Config::from_text("[filters]\nreassociate = false\nsplit_min_length = 77\n", "t.ini",
                               {{"HOME", "/h"}});
  SplitReductionOptions o = SplitReductionOptions::from_config(c);
  CHECK(o.min_length == 77);
  CHECK_FALSE(o.reassociate_floats);
  CHECK(SplitReductionOptions::from_config(Config::defaults({{"HOME", "/h"}})).min_length ==
        (1 << 20));
}

TEST_CASE("split_reduction: an empty input stays") {
  Program p =
      parse_program(".base A int64 1\n.base S int64 1\nADD_REDUCE S{0;0;1}, A{0;0,100;100,1}, 1\n");
  SplitReductionOptions o;
  o.min_length = 4;
  o.keep_fusion = false;
  CHECK(split_reduction(p, o).instrs.size() == 1);
}
