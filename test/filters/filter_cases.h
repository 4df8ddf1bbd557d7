// Test helpers for filters/: the before/after case files of a filter, and checking one pair.
#pragma once

#include <algorithm>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"

namespace hassium::test {

inline std::string filter_case_dir(const std::string& filter) {
  return std::string(HASSIUM_TEST_DIR) + "/filters/cases/" + filter;
}

// The names NAME of cases/<filter>/NAME.before.hsb, sorted.
inline std::vector<std::string> filter_cases(const std::string& filter) {
  std::vector<std::string> names;
  const std::string suffix = ".before.hsb";
  for (const auto& e : std::filesystem::directory_iterator(filter_case_dir(filter))) {
    std::string f = e.path().filename().string();
    if (f.size() > suffix.size() && f.ends_with(suffix))
      names.push_back(f.substr(0, f.size() - suffix.size()));
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Runs `fn` on NAME.before.hsb: its output must verify and print as NAME.after.hsb does.
inline void check_filter_case(const std::string& filter, const std::string& name,
                              const std::function<Program(Program)>& fn) {
  INFO("case " << filter << "/" << name);
  const std::string dir = filter_case_dir(filter) + "/";
  Program before = parse_file(dir + name + ".before.hsb");
  REQUIRE_NOTHROW(verify_program(before));
  Program expected = parse_file(dir + name + ".after.hsb");
  REQUIRE_NOTHROW(verify_program(expected));
  Program after = fn(std::move(before));
  INFO("filter output:\n" << print_program(after));
  REQUIRE_NOTHROW(verify_program(after));
  CHECK(print_program(after) == print_program(expected));
}

// Every case of the filter, through `fn`; at least one case must exist.
inline void check_all_filter_cases(const std::string& filter,
                                   const std::function<Program(Program)>& fn) {
  auto names = filter_cases(filter);
  REQUIRE_FALSE(names.empty());
  for (const auto& name : names) check_filter_case(filter, name, fn);
}

} // namespace hassium::test
