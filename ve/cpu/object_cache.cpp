// DiskObjectCache: checked reads, atomic writes (temporary file + rename) of kernel objects.
#include "ve/cpu/object_cache.h"

#include <filesystem>

#include <llvm/IR/Module.h>
#include <llvm/Object/ObjectFile.h>

#include "core/cache_file.h"
#include "ve/cpu/object_file.h"

namespace hassium::cpu {

namespace {
constexpr size_t kMaxFileBytes = size_t(1) << 30; // far above any kernel's object
constexpr const char* kCache = "kernel cache";
} // namespace

DiskObjectCache::DiskObjectCache(std::string dir) : dir_(std::move(dir)) {
  std::error_code ec;
  std::filesystem::create_directories(dir_, ec); // failing writes are reported when they happen
}

std::string DiskObjectCache::path_of(const std::string& key) const {
  return dir_ + "/" + key + ".o";
}

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::read(const std::string& key) {
  std::string data, why;
  auto status = cache_file::read_regular(path_of(key), kMaxFileBytes, data, why);
  if (status == cache_file::ReadStatus::MISSING) return nullptr;
  std::string_view payload;
  if (status == cache_file::ReadStatus::OK) why = object_file::check(data, key, payload);
  std::unique_ptr<llvm::MemoryBuffer> object;
  if (why.empty()) {
    object = llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(payload), key);
    auto parsed = llvm::object::ObjectFile::createObjectFile(object->getMemBufferRef());
    if (!parsed) {
      why = "not an object file: " + llvm::toString(parsed.takeError());
      object.reset();
    }
  }
  if (!object) {
    ++rejected_;
    cache_file::warn_once(kCache, dir_, "rejected",
                          "ignored " + key + ".o (" + why + "); it is compiled again and replaced");
  }
  return object;
}

std::unique_ptr<llvm::MemoryBuffer> DiskObjectCache::load(const std::string& key) {
  auto object = read(key);
  if (object) ++hits_;
  return object;
}

void DiskObjectCache::store(const std::string& key, llvm::StringRef object) {
  std::string error =
      cache_file::write_atomically(dir_, key + ".o", object_file::encode(key, object));
  if (error.empty()) {
    ++writes_;
    return;
  }
  ++write_errors_;
  cache_file::warn_once(kCache, dir_, "write",
                        error + "; kernels are compiled without being kept on disk");
}

void DiskObjectCache::notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) {
  store(m->getModuleIdentifier(), object.getBuffer());
}

} // namespace hassium::cpu
