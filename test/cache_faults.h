// Test helpers for the disk caches under faults: temporary directories, stderr captured in this
// process or a forked child, a full disk (RLIMIT_FSIZE) and a read-only directory that hold even
// for root, and damaged copies of a file.
#pragma once

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <linux/capability.h>
#include <string>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace hassium::test {

namespace fs = std::filesystem;

// A fresh empty directory under the system's temporary directory, removed at the end.
struct ScratchDir {
  fs::path path;
  ScratchDir() {
    std::string pattern = (fs::temp_directory_path() / "hassium-faults-XXXXXX").string();
    if (!::mkdtemp(pattern.data())) std::abort();
    path = pattern;
    fs::permissions(path, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::permissions(path, fs::perms::owner_all, fs::perm_options::add, ec);
    fs::remove_all(path, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

inline std::string read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

inline void write_bytes(const fs::path& p, const std::string& bytes) {
  std::error_code ec;
  fs::remove_all(p, ec); // whatever is there: a file, a link, a directory
  std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
}

// The names of everything in `dir`, sorted.
inline std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// The lines of `text` that contain `part`.
inline size_t lines_with(const std::string& text, const std::string& part) {
  size_t n = 0, start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string::npos) end = text.size();
    if (text.substr(start, end - start).find(part) != std::string::npos) ++n;
    start = end + 1;
  }
  return n;
}

// Captures what this process writes to stderr (fd 2) while it lives; text() ends the capture.
class StderrCapture {
public:
  StderrCapture() {
    std::fflush(stderr);
    file_ = std::tmpfile();
    saved_ = ::dup(2);
    ::dup2(::fileno(file_), 2);
  }
  ~StderrCapture() { text(); }
  std::string text() {
    if (saved_ >= 0) {
      std::fflush(stderr);
      ::dup2(saved_, 2);
      ::close(saved_);
      saved_ = -1;
      std::rewind(file_);
      char buf[4096];
      size_t n;
      while ((n = std::fread(buf, 1, sizeof buf, file_)) > 0) text_.append(buf, n);
      std::fclose(file_);
    }
    return text_;
  }

private:
  std::FILE* file_ = nullptr;
  int saved_ = -1;
  std::string text_;
};

// What a forked child reported: its exit code (-1 when it did not exit) and its stderr.
struct ChildResult {
  int exit_code = -1;
  std::string err;
};

// Runs `body` in a forked child whose stderr goes to a pipe; the child exits 0 when `body`
// returns true, 1 when false or when it throws. Keep OpenMP to one thread in the child (libgomp's
// thread pool does not survive fork).
inline ChildResult run_in_child(const std::function<bool()>& body) {
  int pipe_fds[2];
  if (::pipe(pipe_fds) != 0) return {};
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) return {};
  if (pid == 0) {
    ::close(pipe_fds[0]);
    ::dup2(pipe_fds[1], 2);
    bool ok = false;
    try {
      ok = body();
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child threw: %s\n", e.what());
    } catch (...) {
      std::fprintf(stderr, "child threw\n");
    }
    std::fflush(stderr);
    ::_exit(ok ? 0 : 1);
  }
  ::close(pipe_fds[1]);
  ChildResult r;
  char buf[4096];
  ssize_t n;
  while ((n = ::read(pipe_fds[0], buf, sizeof buf)) > 0 || (n < 0 && errno == EINTR))
    if (n > 0) r.err.append(buf, size_t(n));
  ::close(pipe_fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  return r;
}

// In a child: every write to a regular file beyond 0 bytes now fails with EFBIG ("File too
// large"), as on a full disk (ENOSPC takes the same path: a failed write). SIGXFSZ, which would
// kill the process, is ignored, as a program that handles full disks does.
inline bool simulate_full_disk() {
  std::signal(SIGXFSZ, SIG_IGN);
  struct rlimit limit {
    0, 0
  };
  return ::setrlimit(RLIMIT_FSIZE, &limit) == 0;
}

// In a child: makes `dir` read-only for this process for real. chmod 0555 alone does not stop
// root, whose CAP_DAC_OVERRIDE ignores permission bits; so root also drops that capability (and
// CAP_DAC_READ_SEARCH, CAP_FOWNER) from its effective and permitted sets: it stays root, reads
// everything as before, but writes only where the permission bits let it. Verifies that a file
// cannot be created in `dir` any more.
inline bool make_read_only(const fs::path& dir) {
  if (::chmod(dir.c_str(), 0555) != 0) return false;
  if (::geteuid() == 0) {
    __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
    __user_cap_data_struct data[2] = {};
    if (::syscall(SYS_capget, &header, data) != 0) return false;
    for (int cap : {CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH, CAP_FOWNER}) {
      data[cap / 32].effective &= ~(1u << (cap % 32));
      data[cap / 32].permitted &= ~(1u << (cap % 32));
    }
    if (::syscall(SYS_capset, &header, data) != 0) return false;
  }
  const std::string probe = (dir / "probe").string();
  int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0644);
  if (fd >= 0) {
    ::close(fd);
    ::unlink(probe.c_str());
    return false;
  }
  return errno == EACCES || errno == EROFS || errno == EPERM;
}

// One damaged or foreign version of a good cache file, by name.
struct Damage {
  std::string name;
  std::function<void(const fs::path& file, const std::string& good)> apply;
};

// Damage every cache must survive: empty, truncated, bits flipped in each field, another
// format, not a regular file. `fields` names byte offsets worth a flipped bit (header words,
// key, payload, checksum); `foreign` are other formats' bytes (another version, another cache's
// file, another key's file).
inline std::vector<Damage> damages(const std::vector<std::pair<std::string, size_t>>& fields,
                                   const std::vector<std::pair<std::string, std::string>>& foreign,
                                   const fs::path& scratch) {
  std::vector<Damage> d;
  d.push_back({"zero-length", [](auto& f, auto&) { write_bytes(f, ""); }});
  d.push_back({"truncated to 5 bytes", [](auto& f, auto& g) { write_bytes(f, g.substr(0, 5)); }});
  d.push_back(
      {"truncated to half", [](auto& f, auto& g) { write_bytes(f, g.substr(0, g.size() / 2)); }});
  d.push_back(
      {"last byte missing", [](auto& f, auto& g) { write_bytes(f, g.substr(0, g.size() - 1)); }});
  d.push_back({"a byte appended", [](auto& f, auto& g) { write_bytes(f, g + "x"); }});
  for (auto [field, at] : fields)
    d.push_back({"a bit flipped in the " + field, [at = at](auto& f, auto& g) {
                   std::string bad = g;
                   bad[at] = char(bad[at] ^ 0x04);
                   write_bytes(f, bad);
                 }});
  for (const auto& [what, bytes] : foreign)
    d.push_back({what, [bytes = bytes](auto& f, auto&) { write_bytes(f, bytes); }});
  d.push_back({"a symlink to a good copy", [scratch](auto& f, auto& g) {
                 write_bytes(scratch / "good-copy", g);
                 write_bytes(f, "");
                 fs::remove(f);
                 fs::create_symlink(scratch / "good-copy", f);
               }});
  d.push_back({"a dangling symlink", [scratch](auto& f, auto&) {
                 write_bytes(f, "");
                 fs::remove(f);
                 fs::create_symlink(scratch / "nowhere", f);
               }});
  d.push_back({"a FIFO (reading it must not block)", [](auto& f, auto&) {
                 write_bytes(f, "");
                 fs::remove(f);
                 ::mkfifo(f.c_str(), 0644);
               }});
  return d;
}

} // namespace hassium::test
