// Tests for filters/registry: every filter is registered by linking the library, in one list.
#include <catch2/catch.hpp>

#include <algorithm>

#include "core/filter_registry.h"
#include "filters/filters.h"

using namespace hassium;

TEST_CASE("linking hassium_filters registers every built-in filter") {
  auto builtin = builtin_filter_names();
  CHECK(builtin == std::vector<std::string>{"expand_power", "split_reduction", "remove_identity",
                                            "forward_copies", "fold_constants", "remove_dead",
                                            "trace"});
  // No call to register_builtin_filters() in this test: in the one list's order, each with a doc.
  CHECK(filter_registry().names() == builtin);
  for (const auto& name : builtin) CHECK_FALSE(filter_registry().doc(name).empty());
  auto resolved = resolve_filters("remove_dead, expand_power");
  REQUIRE(resolved.size() == 2);
  CHECK(resolved[0].name == "remove_dead");
  CHECK(resolved[1].name == "expand_power");
}

TEST_CASE("an unknown filter lists the built-in ones") {
  CHECK_THROWS_WITH(resolve_filters("expand_powr"),
                    Catch::Contains("unknown filter 'expand_powr'; valid: expand_power, "
                                    "split_reduction, remove_identity, forward_copies, "
                                    "fold_constants, remove_dead, trace"));
}
