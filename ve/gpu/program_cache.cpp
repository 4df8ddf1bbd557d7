// ProgramCache: memory map by key, then the disk (`<key>.gpuprog`: a header naming the key, then
// the device's program binary), then the compiler.
#include "ve/gpu/program_cache.h"
#include "core/profile.h"

#include <chrono>
#include <cstdio>

#include <xxhash.h>

#include "core/cache_file.h"

namespace hassium::gpu {

namespace {
constexpr const char* kMagic = "hassium-gpu-program 1\n";
constexpr size_t kMaxFile = size_t(256) << 20;

} // namespace

std::string ProgramCache::key(const std::string& source) const {
  const DeviceInfo& info = device_.info();
  std::string text = source;
  text += '\0';
  text += info.name;
  text += '\0';
  text += info.arch;
  text += '\0';
  text += info.versions;
  XXH128_hash_t h = XXH3_128bits(text.data(), text.size());
  char hex[33];
  std::snprintf(hex, sizeof hex, "%016llx%016llx", static_cast<unsigned long long>(h.high64),
                static_cast<unsigned long long>(h.low64));
  return hex;
}

DeviceProgram& ProgramCache::get(const std::string& source) {
  const std::string k = key(source);
  if (auto it = memory_.find(k); it != memory_.end()) {
    ++stats_.memory_hits;
    return *it->second;
  }
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<DeviceProgram> program;
  if (!dir_.empty()) program = from_disk(k);
  if (program) {
    ++stats_.disk_hits;
  } else {
    program = device_.compile(source);
    ++stats_.compiled;
    if (!dir_.empty()) to_disk(k, *program);
  }
  stats_.compile_seconds += seconds_since(t0);
  return *memory_.emplace(k, std::move(program)).first->second;
}

std::unique_ptr<DeviceProgram> ProgramCache::from_disk(const std::string& k) {
  std::string data, why;
  const std::string path = dir_ + "/" + k + ".gpuprog";
  cache_file::ReadStatus s = cache_file::read_regular(path, kMaxFile, data, why);
  if (s == cache_file::ReadStatus::MISSING) return nullptr;
  const std::string header = std::string(kMagic) + k + "\n";
  if (s == cache_file::ReadStatus::REJECTED || data.compare(0, header.size(), header) != 0) {
    ++stats_.disk_rejected;
    return nullptr;
  }
  std::vector<char> binary(data.begin() + long(header.size()), data.end());
  std::unique_ptr<DeviceProgram> p = device_.load(binary);
  if (!p) ++stats_.disk_rejected; // damaged, or the device does not take it: compiled again
  return p;
}

void ProgramCache::to_disk(const std::string& k, const DeviceProgram& program) {
  std::vector<char> binary = program.binary();
  if (binary.empty()) return;
  std::string data = std::string(kMagic) + k + "\n";
  data.append(binary.data(), binary.size());
  std::string err = cache_file::write_atomically(dir_, k + ".gpuprog", data);
  if (!err.empty()) {
    ++stats_.disk_write_errors;
    cache_file::warn_once("GPU kernel cache", dir_, "write", err);
  }
}

} // namespace hassium::gpu
