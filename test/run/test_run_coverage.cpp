// The `hassium run` cases (test/run/cases) use every signature the opcode table allows.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "core/opcode.h"
#include "ir/text/parser.h"

using namespace hassium;

TEST_CASE("the run cases cover every opcode x dtype signature") {
  std::set<std::pair<Opcode, std::vector<DType>>> covered;
  int files = 0;
  for (const auto& entry :
       std::filesystem::directory_iterator(std::string(HASSIUM_TEST_DIR) + "/run/cases")) {
    if (entry.path().extension() != ".hsb") continue;
    if (entry.path().filename().string().rfind("err_", 0) == 0) continue; // meant to fail
    ++files;
    Program p = parse_file(entry.path().string());
    for (const Instruction& ins : p.instrs) {
      std::vector<DType> sig;
      for (size_t i = 0; i < ins.operands.size(); ++i) sig.push_back(ins.dtype(i));
      covered.emplace(ins.op, sig);
    }
  }
  CHECK(files > 50);
  int missing = 0;
  for (const OpInfo& info : all_opcodes())
    for (const auto& sig : all_signatures(info.op))
      if (!covered.count({info.op, sig})) {
        std::string text(info.name);
        for (DType t : sig) text += " " + std::string(dtype_name(t));
        UNSCOPED_INFO("not covered: " << text);
        ++missing;
      }
  CHECK(missing == 0);
}
