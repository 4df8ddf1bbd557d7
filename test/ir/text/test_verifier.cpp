// Tests for ir/verifier: every rule, with messages naming the instruction and where it is.
#include <catch2/catch.hpp>

#include "core/error.h"
#include "ir/text/parser.h"
#include "ir/text/verifier.h"

using namespace hassium;

namespace {
const std::string kDecl = ".base A float64 12\n.base B float64 12\n.base I int64 12\n"
                          ".base M bool 12\n.base Z complex128 12\n.base U uint64 12\n";

// The message verify_program throws for kDecl + `body` (parsed as "v.hsb"), or "".
std::string verify_error(const std::string& body) {
  Program p = parse_program(kDecl + body, "v.hsb");
  try {
    verify_program(p);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}
} // namespace

TEST_CASE("valid instructions of every family pass") {
  CHECK(verify_error("ADD A, A, B\n"
                     "ADD A{0;3,4;4,1}, A{0;3,4;4,1}, B{0;3,4;1,3}\n"
                     "LESS M, A, 2\n"
                     "IDENTITY I, A\n"
                     "ABSOLUTE A, Z\n"
                     "ADD A, B{0;12;0}, 1\n"
                     "ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, 1\n"
                     "MAXIMUM_REDUCE A{0;;}, B, 0\n"
                     "ADD_ACCUMULATE A{0;3,4;4,1}, A{0;3,4;4,1}, 0\n"
                     "RANGE I\n"
                     "RANDOM U, 1, 2\n"
                     "GATHER A{0;5;1}, B, I{0;5;1}\n"
                     "SCATTER A, B{0;5;1}, I{0;5;1}\n"
                     "SCATTER A, 0, I{0;5;1}\n"
                     "COND_SCATTER A, B{0;5;1}, I{0;5;1}, M{0;5;1}\n"
                     "MATMUL A{0;2,2;2,1}, B{0;2,3;3,1}, B{6;3,2;2,1}\n"
                     "SORT A{0;3,4;4,1}, A{0;3,4;4,1}, 1\n"
                     "ARGSORT I{0;2,3;3,1}, B{0;2,3;3,1}, 0\n"
                     "SEARCHSORTED_LEFT I{0;2,2;2,1}, A{0;5;1}, B{0;2,2;2,1}\n"
                     "ADD B{11;12;-1}, B{11;12;-1}, A{0;12;1}\n"
                     "SYNC A\n"
                     "SYNC B{2;3,2;4,1}\n" // part of a base, as a frontend's read syncs it
                     "FREE A\n") == "");
}

TEST_CASE("verifier messages name the file line, the instruction and what is wrong") {
  // clang-format off
  const std::vector<std::pair<std::string, std::string>> cases = {
    {"ADD A, B", "v.hsb:7: instruction 1 `ADD A, B`: ADD takes 3 operands, got 2"},
    {"FREE", "v.hsb:7: instruction 1 `FREE`: FREE takes 1 operand, got 0"},
    {"ADD A, A, I", "v.hsb:7: instruction 1 `ADD A, A, I`: ADD: bad type signature "
                    "(float64, float64, int64); expected (float64, float64, float64)"},
    {"LEFT_SHIFT A, A, A", "v.hsb:7: instruction 1 `LEFT_SHIFT A, A, A`: LEFT_SHIFT: bad type "
                    "signature (float64, float64, float64); float64 is not one of "
                    "int8|int16|int32|int64|uint8|uint16|uint32|uint64"},
    {"ADD A{0;13;1}, A{0;13;1}, 1", "v.hsb:7: instruction 1 `ADD A{0;13;1}, A{0;13;1}, 1.0`: "
                    "operand 1 (the output) `A{0;13;1}` reaches elements 0..12 outside its base "
                    "`A` (12 elements)"},
    {"ADD A{11;12;-1}, B{12;12;-1}, 1", "v.hsb:7: instruction 1 `ADD A{11;12;-1}, B{12;12;-1}, 1.0`: "
                    "operand 2 `B{12;12;-1}` reaches elements 1..12 outside its base `B` (12 elements)"},
    {"ADD A{13;0;1}, A{13;0;1}, 1", "v.hsb:7: instruction 1 `ADD A{13;0;1}, A{13;0;1}, 1.0`: "
                    "operand 1 (the output) `A{13;0;1}` starts at offset 13 outside its base `A` "
                    "(12 elements)"},
    {"ADD A{0;3;1}, B{0;3;4611686018427387904}, 1", "v.hsb:7: instruction 1 "
                    "`ADD A{0;3;1}, B{0;3;4611686018427387904}, 1.0`: operand 2 "
                    "`B{0;3;4611686018427387904}` reaches elements 0..9223372036854775808 outside "
                    "its base `B` (12 elements)"},
    {"ADD A{0;3;1}, B{0;2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,"
     "2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2,2;"
     "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,"
     "0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0}, 1", "has more than 2^63 elements"},
    {"ADD A{0;3,4;4,1}, A{0;3,4;4,1}, B{0;4,3;3,1}", "v.hsb:7: instruction 1 "
                    "`ADD A{0;3,4;4,1}, A{0;3,4;4,1}, B{0;4,3;3,1}`: shape mismatch: operand 3 has "
                    "shape (4, 3), the output has shape (3, 4)"},
    {"ADD 1, A, B", "v.hsb:7: instruction 1 `ADD 1.0, A, B`: operand 1 (the output) must be a "
                    "view, found constant `1.0`"},
    {"FREE A{0;2;1}", "v.hsb:7: instruction 1 `FREE A{0;2;1}`: FREE needs a bare base name, "
                    "found view `A{0;2;1}`"},
    {"SYNC 3", "v.hsb:7: instruction 1 `SYNC 3`: operand 1 (the synced view) must be a view, "
                "found constant `3`"},
    {"SYNC A{13;2;1}", "v.hsb:7: instruction 1 `SYNC A{13;2;1}`: operand 1 (the synced view) "
                "`A{13;2;1}` reaches elements 13..14 outside its base `A` (12 elements)"},
    {"ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, 2", "v.hsb:7: instruction 1 "
                    "`ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, 2`: axis 2 is out of range for a 2-d "
                    "input (valid: 0..1)"},
    {"ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, -1", "v.hsb:7: instruction 1 "
                    "`ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, -1`: axis -1 is out of range for a 2-d "
                    "input (valid: 0..1)"},
    {"ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, 0", "v.hsb:7: instruction 1 "
                    "`ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, 0`: shape mismatch: reducing shape "
                    "(3, 4) over axis 0 gives (4,), the output has shape (3,)"},
    {"ADD_REDUCE A{0;;}, B{0;;}, 0", "v.hsb:7: instruction 1 `ADD_REDUCE A{0;;}, B{0;;}, 0`: "
                    "the input is 0-d: there is no axis to reduce"},
    {"ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, B", "v.hsb:7: instruction 1 "
                    "`ADD_REDUCE A{0;3;1}, B{0;3,4;4,1}, B`: operand 3 (the axis) must be a "
                    "constant, found view `B`"},
    {"ADD_REDUCE A{0;3;1}, A{0;3,4;4,1}, 1", "v.hsb:7: instruction 1 "
                    "`ADD_REDUCE A{0;3;1}, A{0;3,4;4,1}, 1`: operand 2 (the input) `A{0;3,4;4,1}` "
                    "overlaps the output `A{0;3;1}` (ADD_REDUCE needs them disjoint)"},
    {"ADD A{1;11;1}, A{0;11;1}, 1", "v.hsb:7: instruction 1 `ADD A{1;11;1}, A{0;11;1}, 1.0`: "
                    "operand 2 `A{0;11;1}` overlaps the output `A{1;11;1}` without being identical "
                    "to it (not data-parallel: copy it first)"},
    {"ADD A, A, A{11;12;-1}", "v.hsb:7: instruction 1 `ADD A, A, A{11;12;-1}`: operand 3 "
                    "`A{11;12;-1}` overlaps the output `A` without being identical to it "
                    "(not data-parallel: copy it first)"},
    {"ADD A{0;12;0}, B, B", "v.hsb:7: instruction 1 `ADD A{0;12;0}, B, B`: the output "
                    "`A{0;12;0}` has stride 0 in dimension 0: it would write its elements more "
                    "than once"},
    {"GATHER A{0;5;1}, A{4;5;1}, I{0;5;1}", "v.hsb:7: instruction 1 "
                    "`GATHER A{0;5;1}, A{4;5;1}, I{0;5;1}`: operand 2 (the source) `A{4;5;1}` "
                    "overlaps the output `A{0;5;1}` (GATHER needs them disjoint)"},
    {"GATHER A{0;5;1}, B, I{0;4;1}", "v.hsb:7: instruction 1 `GATHER A{0;5;1}, B, I{0;4;1}`: "
                    "shape mismatch: operand 3 (the index) has shape (4,), the output has shape (5,)"},
    {"COND_SCATTER A, B{0;5;1}, I{0;5;1}, M{0;4;1}", "v.hsb:7: instruction 1 "
                    "`COND_SCATTER A, B{0;5;1}, I{0;5;1}, M{0;4;1}`: shape mismatch: operand 4 "
                    "(the mask) has shape (4,), the index has shape (5,)"},
    {"MATMUL A{0;2,2;2,1}, B{0;2,3;3,1}, B{6;2,2;2,1}", "v.hsb:7: instruction 1 "
                    "`MATMUL A{0;2,2;2,1}, B{0;2,3;3,1}, B{6;2,2;2,1}`: shape mismatch: MATMUL of "
                    "(2, 3) and (2, 2) into (2, 2)"},
    {"MATMUL A, B, B", "v.hsb:7: instruction 1 `MATMUL A, B, B`: MATMUL needs 2-d operands, "
                    "operand 1 (the output) has shape (12,)"},
    {"SORT A{0;2,4;4,1}, A{1;2,4;4,1}, 1", "v.hsb:7: instruction 1 "
                    "`SORT A{0;2,4;4,1}, A{1;2,4;4,1}, 1`: operand 2 (the input) `A{1;2,4;4,1}` "
                    "overlaps the output `A{0;2,4;4,1}` without being identical to it "
                    "(not data-parallel: copy it first)"},
    {"ARGSORT I{0;2,3;3,1}, B{0;3,2;2,1}, 0", "v.hsb:7: instruction 1 "
                    "`ARGSORT I{0;2,3;3,1}, B{0;3,2;2,1}, 0`: shape mismatch: operand 1 (the "
                    "output) has shape (2, 3), the input has shape (3, 2)"},
    {"ARGSORT I{0;2,3;3,1}, B{0;2,3;3,1}, 2", "v.hsb:7: instruction 1 "
                    "`ARGSORT I{0;2,3;3,1}, B{0;2,3;3,1}, 2`: axis 2 is out of range for a 2-d "
                    "input (valid: 0..1)"},
    {"SEARCHSORTED_RIGHT I{0;4;1}, B{0;2,2;2,1}, A{0;4;1}", "v.hsb:7: instruction 1 "
                    "`SEARCHSORTED_RIGHT I{0;4;1}, B{0;2,2;2,1}, A{0;4;1}`: SEARCHSORTED_RIGHT "
                    "needs a 1-d sorted array, operand 2 (the sorted array) has shape (2, 2)"},
    {"RANDOM U, U, 2", "v.hsb:7: instruction 1 `RANDOM U, U, 2`: operand 2 (the seed) must be "
                    "a constant, found view `U`"},
    {"FREE A\nADD B, B, A", "v.hsb:8: instruction 2 `ADD B, B, A`: base `A` is used after its "
                    "FREE at instruction 1 (line 7)"},
    {"FREE A\n\nFREE A", "v.hsb:9: instruction 2 `FREE A`: base `A` is used after its FREE at "
                    "instruction 1 (line 7)"},
  };
  // clang-format on
  for (const auto& [body, msg] : cases) {
    INFO(body);
    std::string got = verify_error(body);
    if (msg.rfind("v.hsb", 0) == 0)
      CHECK(got == msg);
    else
      CHECK(got.find(msg) != std::string::npos);
  }
}

TEST_CASE("verify_instruction names the instruction by its 1-based number") {
  auto a = make_base("A", DType::FLOAT32, 4);
  Instruction ins(Opcode::ADD, {View::whole(a), View::whole(a)});
  CHECK_THROWS_WITH(verify_instruction(ins, 4),
                    "instruction 5 `ADD A, A`: ADD takes 3 operands, got 2");
  Instruction ok(Opcode::ADD,
                 {View::whole(a), View::whole(a), Scalar::of_float(1, DType::FLOAT32)});
  CHECK_NOTHROW(verify_instruction(ok, 0));
}

TEST_CASE("programs built in code: undeclared, duplicate and malformed bases") {
  auto a = make_base("A", DType::FLOAT32, 4);
  auto a2 = make_base("A", DType::FLOAT32, 4);
  Program p;
  p.bases = {a};
  p.instrs.emplace_back(Opcode::ADD, std::vector<Operand>{View::whole(a), View::whole(a2),
                                                          Scalar::of_float(1, DType::FLOAT32)});
  CHECK_THROWS_WITH(verify_program(p), "instruction 1 `ADD A, A, 1.0`: operand 2: base `A` is not "
                                       "declared in the program");
  p.bases.push_back(a2);
  CHECK_THROWS_WITH(verify_program(p), "the program declares two bases named `A`");
  View bad = View::whole(a);
  bad.stride.push_back(1);
  Instruction ins(Opcode::SQRT, {View::whole(a), bad});
  CHECK_THROWS_WITH(verify_instruction(ins, 0), "instruction 1 `SQRT A, A{0;4;1,1}`: operand 2 "
                                                "`A{0;4;1,1}` has 1 extent(s) but 2 stride(s)");
  View neg = View::whole(a);
  neg.shape[0] = -1;
  Instruction ins2(Opcode::SQRT, {View::whole(a), neg});
  CHECK_THROWS_WITH(verify_instruction(ins2, 0), "instruction 1 `SQRT A, A{0;-1;1}`: operand 2 "
                                                 "`A{0;-1;1}` has a negative extent -1");
  Instruction nobase(Opcode::SQRT, {View::whole(a), View{}});
  CHECK_THROWS_WITH(verify_instruction(nobase, 0),
                    "instruction 1 `SQRT A, <no base>`: operand 2 is a view without a base");
}
