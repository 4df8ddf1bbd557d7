// The `hassium run` cases (test/run/cases/*.hsb) as programs for the engines' agreement tests:
// their paths, their text, and a run on a backend that keeps the program (its bases' values) and
// the UserError's message.
#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/backend.h"
#include "core/error.h"
#include "core/program.h"
#include "ir/text/parser.h"

namespace hassium::test {

inline std::vector<std::filesystem::path> run_case_paths() {
  std::vector<std::filesystem::path> cases;
  for (const auto& e : std::filesystem::directory_iterator(HASSIUM_TEST_DIR "/run/cases"))
    if (e.path().extension() == ".hsb") cases.push_back(e.path());
  std::sort(cases.begin(), cases.end());
  return cases;
}

inline std::string read_text(const std::filesystem::path& p) {
  std::ifstream f(p);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

struct RunOutcome {
  std::string error; // the UserError's message, or empty
  Program program;
};

// Parses `text` (a parse of its own) and executes it on `b`.
inline RunOutcome run_text(Backend& b, const std::string& text) {
  RunOutcome o{{}, parse_program(text)};
  try {
    b.execute(o.program);
  } catch (const UserError& e) {
    o.error = e.what();
  }
  return o;
}

} // namespace hassium::test
