// libFuzzer target: parse + verify + print + reparse any text; only UserError may escape parsing.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "core/error.h"
#include "ir/text/parser.h"
#include "ir/text/printer.h"
#include "ir/text/verifier.h"

namespace {

[[noreturn]] void bug(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_parser: %s\n%s\n", what, detail.c_str());
  std::abort();
}

// The outcome of verification: "" when valid, else the message. Line numbers are dropped
// first: the printed program puts its instructions on other lines.
std::string verify_outcome(hassium::Program& prog) {
  prog.source_lines.clear();
  try {
    hassium::verify_program(prog);
    return "";
  } catch (const hassium::UserError& e) {
    return e.what();
  }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  hassium::Program prog;
  try {
    prog = hassium::parse_program(text, "fuzz.hsb");
  } catch (const hassium::UserError&) {
    return 0; // rejected input: fine, as long as it was rejected with a UserError
  }
  std::string verdict = verify_outcome(prog);
  // Whatever parses prints, and the printed text parses back to the same text and verdict.
  std::string printed = hassium::print_program(prog);
  hassium::Program again;
  try {
    again = hassium::parse_program(printed, "printed.hsb");
  } catch (const hassium::UserError& e) {
    bug("the printed program does not parse", printed + "\n" + e.what());
  }
  std::string reprinted = hassium::print_program(again);
  if (reprinted != printed)
    bug("print(parse(print(p))) != print(p)", printed + "\n---\n" + reprinted);
  std::string verdict_again = verify_outcome(again);
  if (verdict_again != verdict)
    bug("verification differs after printing", verdict + "\n---\n" + verdict_again);
  return 0;
}
