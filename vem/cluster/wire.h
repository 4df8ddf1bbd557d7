// Wire: the bytes rank 0 broadcasts per flush (a command, new and dead bases, the program).
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/instruction.h"

namespace hassium::cluster {

enum class Command : uint8_t { EXECUTE = 1, SHUTDOWN = 2, COUNTERS = 3 };

class WireWriter {
public:
  template <typename T> void put(const T& v) {
    const char* p = reinterpret_cast<const char*>(&v);
    bytes.insert(bytes.end(), p, p + sizeof(T));
  }
  void put_string(const std::string& s) {
    put(uint32_t(s.size()));
    bytes.insert(bytes.end(), s.begin(), s.end());
  }
  // An instruction, its views naming bases by cluster id.
  template <typename IdOf> void put_instruction(const Instruction& ins, IdOf id_of) {
    put(uint16_t(ins.op));
    put(uint8_t(ins.operands.size()));
    for (size_t k = 0; k < ins.operands.size(); ++k) {
      if (ins.is_view(k)) {
        const View& v = ins.view(k);
        put(uint8_t(0));
        put(id_of(*v.base));
        put(v.offset);
        put(uint8_t(v.ndim()));
        for (int d = 0; d < v.ndim(); ++d) put(v.shape[size_t(d)]), put(v.stride[size_t(d)]);
      } else {
        put(uint8_t(1));
        put(ins.constant(k));
      }
    }
  }
  std::vector<char> bytes;
};

class WireReader {
public:
  explicit WireReader(const std::vector<char>& b) : p_(b.data()), end_(b.data() + b.size()) {}
  template <typename T> T get() {
    HS_INTERNAL_ASSERT(size_t(end_ - p_) >= sizeof(T)) << "cluster: truncated message";
    T v;
    std::memcpy(&v, p_, sizeof(T));
    p_ += sizeof(T);
    return v;
  }
  std::string get_string() {
    const uint32_t n = get<uint32_t>();
    HS_INTERNAL_ASSERT(size_t(end_ - p_) >= n) << "cluster: truncated message";
    std::string s(p_, n);
    p_ += n;
    return s;
  }
  template <typename BaseOf> Instruction get_instruction(BaseOf base_of) {
    Instruction ins;
    ins.op = Opcode(get<uint16_t>());
    const int n = get<uint8_t>();
    for (int k = 0; k < n; ++k) {
      if (get<uint8_t>() == 0) {
        View v;
        v.base = base_of(get<uint64_t>());
        v.offset = get<int64_t>();
        const int nd = get<uint8_t>();
        for (int d = 0; d < nd; ++d) {
          v.shape.push_back(get<int64_t>());
          v.stride.push_back(get<int64_t>());
        }
        ins.operands.emplace_back(std::move(v));
      } else {
        ins.operands.emplace_back(get<Scalar>());
      }
    }
    return ins;
  }

private:
  const char* p_;
  const char* end_;
};

} // namespace hassium::cluster
