// Cache files: temporary file + rename writes with every error checked, bounded non-blocking
// reads of regular files, once-per-process warnings.
#include "core/cache_file.h"

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <mutex>
#include <set>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

namespace hassium::cache_file {

namespace {

std::string failure(const char* what, const std::string& path, int err) {
  return std::string("cannot ") + what + " " + path + ": " + std::strerror(err);
}

// write(2) until all is written; false with errno set otherwise.
bool write_all(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    if (n == 0) {
      errno = EIO;
      return false;
    }
    data.remove_prefix(size_t(n));
  }
  return true;
}

} // namespace

std::string write_atomically(const std::string& dir, const std::string& name,
                             std::string_view data) {
  static std::atomic<uint64_t> counter{0};
  const std::string path = dir + "/" + name;
  const std::string tmp =
      dir + "/.tmp-" + name + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0 && errno == ENOENT) { // the directory is missing (never made, or removed since)
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  }
  if (fd < 0) return failure("create", tmp, errno);
  int err = write_all(fd, data) ? 0 : errno;
  // close() reports delayed write errors on some file systems (NFS, quotas).
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) == 0) return "";
  std::string why = err ? failure("write", tmp, err) : failure("rename to", path, errno);
  ::unlink(tmp.c_str());
  return why;
}

ReadStatus read_regular(const std::string& path, size_t max_bytes, std::string& out,
                        std::string& why) {
  out.clear();
  // O_NOFOLLOW: a symlink is not ours; O_NONBLOCK: opening a FIFO must not wait for a writer.
  int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT || errno == ENOTDIR) return ReadStatus::MISSING; // no such file
    why = errno == ELOOP ? "a symbolic link" : std::strerror(errno);
    return ReadStatus::REJECTED;
  }
  struct stat st {};
  ReadStatus status = ReadStatus::REJECTED;
  if (::fstat(fd, &st) != 0) {
    why = std::strerror(errno);
  } else if (!S_ISREG(st.st_mode)) {
    why = S_ISDIR(st.st_mode) ? "a directory" : "not a regular file";
  } else if (uint64_t(st.st_size) > max_bytes) {
    why = "larger than " + std::to_string(max_bytes) + " bytes";
  } else {
    // Read to the end: a file that grows or shrinks meanwhile is caught by the caller's checks.
    out.resize(size_t(st.st_size));
    size_t got = 0;
    char extra;
    for (;;) {
      char* at = got < out.size() ? out.data() + got : &extra;
      ssize_t n = ::read(fd, at, got < out.size() ? out.size() - got : 1);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        why = std::strerror(errno);
        break;
      }
      if (n == 0) {
        out.resize(got);
        status = ReadStatus::OK;
        break;
      }
      if (at == &extra) {
        why = "changed while read";
        break;
      }
      got += size_t(n);
    }
  }
  ::close(fd);
  if (status != ReadStatus::OK) out.clear();
  return status;
}

bool warn_once(std::string_view cache, const std::string& dir, std::string_view kind,
               const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  std::string id = std::string(cache) + '\0' + dir + '\0' + std::string(kind);
  {
    std::lock_guard lock(mutex);
    if (!warned.insert(std::move(id)).second) return false;
  }
  // One write, so lines of concurrent processes do not interleave.
  std::string line = "hassium: warning: " + std::string(cache) + " " + dir + ": " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  return true;
}

namespace {
constexpr size_t kMagicSize = 8;
constexpr size_t kKindSize = 6;
constexpr size_t kFrameHeader = 24; // magic, key size, payload size

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

std::string frame(std::string_view magic, std::string_view key, std::string_view payload) {
  std::string data;
  data.reserve(kFrameHeader + key.size() + payload.size() + 8);
  data.append(magic.substr(0, kMagicSize));
  append_u64(data, key.size());
  append_u64(data, payload.size());
  data += key;
  data += payload;
  append_u64(data, XXH64(data.data(), data.size(), 0));
  return data;
}

std::string unframe(std::string_view data, std::string_view magic, std::string_view kind,
                    std::string_view what, std::string_view key, std::string_view& payload) {
  if (data.size() < kFrameHeader + 8) return "truncated";
  if (data.substr(0, kKindSize) != magic.substr(0, kKindSize)) return "not a " + std::string(kind);
  if (data.substr(0, kMagicSize) != magic.substr(0, kMagicSize)) return "another format version";
  const uint64_t key_size = load_u64(data.data() + 8), size = load_u64(data.data() + 16);
  const uint64_t room = data.size() - kFrameHeader - 8;
  if (key_size > room || size != room - key_size) return "truncated, or bad size fields";
  if (XXH64(data.data(), data.size() - 8, 0) != load_u64(data.data() + data.size() - 8))
    return "bad checksum";
  if (data.substr(kFrameHeader, key_size) != key)
    return "the " + std::string(what) + " of another key";
  payload = data.substr(kFrameHeader + key_size, size);
  return "";
}

} // namespace hassium::cache_file
