// batch_source: generated programs joined under one header, their names kept apart by macros.
#include "ve/gpu/program_batch.h"

#include "core/error.h"
#include "ve/gpu/kernel_source.h"
#include "ve/gpu/prelude.h"

namespace hassium::gpu {

namespace {
// The names a body defines at file scope: its entries and its params type.
constexpr const char* kRenamed[] = {kElementsEntry, kRowsEntry, kGroupsEntry, kCombineEntry,
                                    kParamsType};
} // namespace

std::string program_header(const Dialect& dialect) {
  return dialect.prelude + shared_prelude() + "#define HS_L " + std::to_string(kGroupSize) + "\n";
}

bool has_header(const std::string& source, const std::string& header) {
  return source.compare(0, header.size(), header) == 0;
}

std::string batch_suffix(size_t i) {
  return "_b" + std::to_string(i);
}

namespace {
std::string renames(size_t i) {
  std::string out;
  for (const char* name : kRenamed)
    out += std::string("#define ") + name + " " + name + batch_suffix(i) + "\n";
  return out;
}
std::string undefines() {
  std::string out;
  for (const char* name : kRenamed) out += std::string("#undef ") + name + "\n";
  return out + "#undef " + kParamsMacro + "\n";
}
} // namespace

std::string batch_source(const std::string& header,
                         const std::vector<const std::string*>& sources) {
  std::string out = header;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string& source = *sources[i];
    HS_INTERNAL_ASSERT(has_header(source, header))
        << "program " << i << " of a batch lacks the header";
    out += renames(i);
    out.append(source, header.size(), std::string::npos);
    if (out.back() != '\n') out += '\n';
    out += undefines();
  }
  return out;
}

std::vector<std::string> batch_programs(const std::string& header, const std::string& batch) {
  if (!has_header(batch, header)) return {};
  std::vector<std::string> programs;
  const std::string end = undefines();
  size_t at = header.size();
  while (at < batch.size()) {
    const std::string begin = renames(programs.size());
    if (batch.compare(at, begin.size(), begin) != 0) return {};
    at += begin.size();
    const size_t stop = batch.find(end, at);
    if (stop == std::string::npos) return {};
    programs.push_back(header + batch.substr(at, stop - at));
    at = stop + end.size();
  }
  return programs;
}

} // namespace hassium::gpu
