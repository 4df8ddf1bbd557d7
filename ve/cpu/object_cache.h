// DiskObjectCache: compiled kernels as object files in a directory, keyed by a content hash;
// plugged into the JIT's compiler as an LLVM ObjectCache. Many processes may share it.
#pragma once

#include <memory>
#include <string>
#include <unordered_map>

#include <llvm/ExecutionEngine/ObjectCache.h>
#include <llvm/Support/MemoryBuffer.h>

namespace hassium::cpu {

// File `<dir>/<key>.o`: an 8-byte magic, the payload size and its xxh64, then the object.
// Writes go to a temporary file renamed into place (atomic: readers see all or nothing); a
// file that fails the checks is ignored (and overwritten by the next compile).
class DiskObjectCache : public llvm::ObjectCache {
public:
  explicit DiskObjectCache(std::string dir);

  // Reads and checks the object of `key`; when intact, keeps it for getObject and returns true.
  bool prefetch(const std::string& key);

  // The module identifier is the key.
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) override;
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module* m) override;

  const std::string& dir() const { return dir_; }
  std::string path_of(const std::string& key) const;

private:
  std::unique_ptr<llvm::MemoryBuffer> read(const std::string& key) const;

  std::string dir_;
  std::unordered_map<std::string, std::unique_ptr<llvm::MemoryBuffer>> prefetched_;
};

} // namespace hassium::cpu
