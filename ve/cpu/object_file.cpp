// The kernel cache's file format: the cache files' frame (core/cache_file.h) under its magic.
#include "ve/cpu/object_file.h"

#include "core/cache_file.h"

namespace hassium::cpu::object_file {

std::string encode(std::string_view key, std::string_view object) {
  return cache_file::frame(kMagic, key, object);
}

std::string check(std::string_view data, std::string_view key, std::string_view& object) {
  return cache_file::unframe(data, kMagic, "kernel object file", "object", key, object);
}

} // namespace hassium::cpu::object_file
