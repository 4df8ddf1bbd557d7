// drop_code_pages: madvise(MADV_DONTNEED) over this object's read-only PT_LOAD segments.
#include "ve/cpu/code_pages.h"

#include <cstdint>
#include <link.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

namespace hassium {
namespace cpu {

namespace {

struct Search {
  uintptr_t address; // inside the object to find
  size_t dropped = 0;
};

bool contains(const dl_phdr_info* info, uintptr_t address) {
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    uintptr_t start = info->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && address >= start && address < start + ph.p_memsz) return true;
  }
  return false;
}

int drop_in_object(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  if (!contains(info, search->address)) return 0;
  const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W)) continue; // data, relro: modified pages
    uintptr_t start = info->dlpi_addr + ph.p_vaddr, end = start + ph.p_memsz;
    start &= ~(page - 1); // whole pages inside the segment's mapping
    end = (end + page - 1) & ~(page - 1);
    if (madvise(reinterpret_cast<void*>(start), end - start, MADV_DONTNEED) == 0)
      search->dropped += end - start;
  }
  return 1; // found: stop iterating
}

} // namespace

size_t drop_code_pages() {
  Search search{reinterpret_cast<uintptr_t>(&drop_code_pages)};
  dl_iterate_phdr(drop_in_object, &search);
  malloc_trim(0);
  return search.dropped;
}

} // namespace cpu
} // namespace hassium
