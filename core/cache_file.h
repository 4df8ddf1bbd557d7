// Files of the on-disk caches (kernels, partitions) that many processes share: atomic writes,
// reads of regular files only, and warnings printed once per process per cache directory.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace hassium::cache_file {

// Writes `data` as `dir/name` through a temporary file in `dir` (`.tmp-NAME-PID-N`) renamed
// into place, so a reader sees the old file, the whole new one or none. Creates `dir` when it
// is missing. Returns "" when written; else what failed, e.g. "cannot write
// /d/.tmp-x-12-0: File too large", and the temporary file is gone.
std::string write_atomically(const std::string& dir, const std::string& name,
                             std::string_view data);

enum class ReadStatus { OK, MISSING, REJECTED };

// Reads `path` into `out` when it is a regular file of at most `max_bytes` bytes. A symlink
// (not followed), a directory, a FIFO or device, a larger file or one that cannot be read is
// REJECTED with the reason in `why`; MISSING when nothing has that name. Never blocks.
ReadStatus read_regular(const std::string& path, size_t max_bytes, std::string& out,
                        std::string& why);

// A cache file's frame, so a damaged, truncated, foreign or misplaced file is told apart from a
// good one: an 8-byte `magic` (its first 6 bytes the kind of file, the last 2 its format
// version), u64 key size, u64 payload size, the key, the payload, then the xxh64 of all before.
std::string frame(std::string_view magic, std::string_view key, std::string_view payload);

// Why `data` is not the frame of `key` under `magic` ("" when it is): "truncated", "not a KIND"
// (another kind of file), "another format version", "truncated, or bad size fields", "bad
// checksum", "the WHAT of another key" (WHAT names the payload). On success `payload` points
// into `data`.
std::string unframe(std::string_view data, std::string_view magic, std::string_view kind,
                    std::string_view what, std::string_view key, std::string_view& payload);

// Prints "hassium: warning: CACHE DIR: MESSAGE" on stderr, the first time only per process
// for this (cache, dir, kind); later calls with the same three return false and print nothing.
bool warn_once(std::string_view cache, const std::string& dir, std::string_view kind,
               const std::string& message);

} // namespace hassium::cache_file
