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

// Prints "hassium: warning: CACHE DIR: MESSAGE" on stderr, the first time only per process
// for this (cache, dir, kind); later calls with the same three return false and print nothing.
bool warn_once(std::string_view cache, const std::string& dir, std::string_view kind,
               const std::string& message);

} // namespace hassium::cache_file
