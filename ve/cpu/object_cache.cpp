// DiskObjectCache: checked reads, atomic writes (temporary file + rename) of kernel objects.
#include "ve/cpu/object_cache.h"

#include <atomic>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>

#include <llvm/IR/Module.h>
#include <llvm/Object/ObjectFile.h>
#include <xxhash.h>

namespace hassium::cpu {

namespace {
constexpr char kMagic[8] = {'H', 'S', 'K', 'O', 'B', 'J', '0', '1'};
constexpr size_t kHeader = 24; // magic, payload size, payload xxh64
} // namespace

DiskObjectCache::DiskObjectCache(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec); // a cache that cannot be written just misses
}

std::string DiskObjectCache::path_of(const std::string& key) const {
  return dir_ + "/" + key + ".o";
}

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::read(const std::string& key) const {
  auto file =
      llvm::MemoryBuffer::getFile(path_of(key), /*IsText=*/false, /*RequiresNullTerminator=*/false);
  if (!file) return nullptr;
  llvm::StringRef data = (*file)->getBuffer();
  if (data.size() < kHeader || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0) return nullptr;
  uint64_t size = 0, hash = 0;
  std::memcpy(&size, data.data() + 8, 8);
  std::memcpy(&hash, data.data() + 16, 8);
  if (size != data.size() - kHeader) return nullptr;
  llvm::StringRef payload = data.substr(kHeader);
  if (XXH64(payload.data(), payload.size(), 0) != hash) return nullptr;
  auto object = llvm::MemoryBuffer::getMemBufferCopy(payload, key);
  auto parsed = llvm::object::ObjectFile::createObjectFile(object->getMemBufferRef());
  if (!parsed) {
    llvm::consumeError(parsed.takeError());
    return nullptr;
  }
  return object;
}

bool DiskObjectCache::prefetch(const std::string& key) {
  auto object = read(key);
  if (!object) return false;
  prefetched_[key] = std::move(object);
  return true;
}

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::getObject(const llvm::Module* m) {
  std::string key = m->getModuleIdentifier();
  auto it = prefetched_.find(key);
  if (it == prefetched_.end()) return nullptr; // not prefetched: the module is compiled
  auto object = std::move(it->second);
  prefetched_.erase(it);
  return object;
}

void DiskObjectCache::notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) {
  static std::atomic<uint64_t> counter{0};
  const std::string key = m->getModuleIdentifier();
  const std::string path = path_of(key);
  const std::string tmp =
      path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  llvm::StringRef payload = object.getBuffer();
  uint64_t size = payload.size(), hash = XXH64(payload.data(), payload.size(), 0);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return;
    out.write(kMagic, sizeof kMagic);
    out.write(reinterpret_cast<const char*>(&size), 8);
    out.write(reinterpret_cast<const char*>(&hash), 8);
    out.write(payload.data(), std::streamsize(payload.size()));
    if (!out.flush()) {
      out.close();
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      return;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::filesystem::remove(tmp, ec);
}

} // namespace hassium::cpu
