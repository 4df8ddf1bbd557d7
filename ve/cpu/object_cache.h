// DiskObjectCache: compiled kernels as object files in a directory, keyed by a content hash;
// plugged into the JIT's compiler as an LLVM ObjectCache. Many processes may share it.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/Support/MemoryBuffer.h>

namespace hassium::cpu {

// File `<dir>/<key>.o` in the format of ve/cpu/object_file.h (key, object, sizes, checksum).
// Writes go to a temporary file renamed into place (readers see all or nothing;
// core/cache_file.h). A file is used only when it is a regular file, its checksum holds, it names
// this very key and its object parses; anything else is rejected (counted, warned about once per
// process) and replaced by the next compile. A write that fails (full disk, read-only
// directory) is counted and warned about once per process; the kernel runs all the same.
// Thread-safe (the JIT compiles on the engine's thread and a background thread).
class DiskObjectCache : public llvm::ObjectCache {
public:
  struct Stats {
    uint64_t hits = 0;         // objects read and accepted
    uint64_t rejected = 0;     // files found but damaged, foreign, for another key, not files
    uint64_t writes = 0;       // objects written
    uint64_t write_errors = 0; // objects that could not be written
  };

  explicit DiskObjectCache(std::string dir);

  // The object of `key` when its file is intact (counted as a hit), else null (a damaged file
  // is counted and warned about).
  std::unique_ptr<llvm::MemoryBuffer> load(const std::string& key);

  // Stores what the compiler made (the module identifier is the key). Objects are read back by
  // load(), not through the compiler: getObject() finds nothing.
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) override;
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module*) override { return nullptr; }

  const std::string& dir() const { return dir_; }
  std::string path_of(const std::string& key) const;
  Stats stats() const {
    return {hits_.load(), rejected_.load(), writes_.load(), write_errors_.load()};
  }

private:
  std::unique_ptr<llvm::MemoryBuffer> read(const std::string& key);
  void store(const std::string& key, llvm::StringRef object);

  std::string dir_;
  std::atomic<uint64_t> hits_{0}, rejected_{0}, writes_{0}, write_errors_{0};
};

} // namespace hassium::cpu
