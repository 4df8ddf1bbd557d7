// The kernel cache's file format: encoding and every check a file must pass before it is used.
#include "ve/cpu/object_file.h"

#include <cstdint>
#include <cstring>

#include <xxhash.h>

namespace hassium::cpu::object_file {

namespace {
constexpr size_t kMagicSize = 8;
constexpr size_t kHeader = 24; // magic, key size, object size

uint64_t load_u64(const char* p) {
  uint64_t x;
  std::memcpy(&x, p, 8);
  return x;
}

void append_u64(std::string& s, uint64_t x) {
  char buf[8];
  std::memcpy(buf, &x, 8);
  s.append(buf, 8);
}
} // namespace

std::string encode(std::string_view key, std::string_view object) {
  std::string data;
  data.reserve(kHeader + key.size() + object.size() + 8);
  data.append(kMagic, kMagicSize);
  append_u64(data, key.size());
  append_u64(data, object.size());
  data += key;
  data += object;
  append_u64(data, XXH64(data.data(), data.size(), 0));
  return data;
}

std::string check(std::string_view data, std::string_view key, std::string_view& object) {
  if (data.size() < kHeader + 8) return "truncated";
  if (std::memcmp(data.data(), kMagic, 6) != 0) return "not a kernel object file";
  if (std::memcmp(data.data(), kMagic, kMagicSize) != 0) return "another format version";
  const uint64_t key_size = load_u64(data.data() + 8), size = load_u64(data.data() + 16);
  const uint64_t room = data.size() - kHeader - 8;
  if (key_size > room || size != room - key_size) return "truncated, or bad size fields";
  if (XXH64(data.data(), data.size() - 8, 0) != load_u64(data.data() + data.size() - 8))
    return "bad checksum";
  if (data.substr(kHeader, key_size) != key) return "the object of another key";
  object = data.substr(kHeader + key_size, size);
  return "";
}

} // namespace hassium::cpu::object_file
