// The kernel cache's file format (DiskObjectCache): an object file framed with its key, sizes and
// checksum, so a damaged, truncated, foreign or misplaced file is told apart from a good one.
#pragma once

#include <string>
#include <string_view>

namespace hassium::cpu::object_file {

// The first 8 bytes; the JIT's key includes it, so another version's files are never read.
inline constexpr char kMagic[9] = "HSKOBJ02";

// The cache files' frame (core/cache_file.h): magic, u64 key size, u64 object size, the key, the
// object, then the xxh64 of all before it.
std::string encode(std::string_view key, std::string_view object);

// Why `data` is not the file of `key` ("" when it is); on success `object` is its object part
// (pointing into `data`).
std::string check(std::string_view data, std::string_view key, std::string_view& object);

} // namespace hassium::cpu::object_file
