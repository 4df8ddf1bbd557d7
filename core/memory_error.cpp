// NumPy's MemoryError text for a base.
#include "core/memory_error.h"

#include <cstdio>
#include <iterator>

namespace hassium {

std::string unable_to_allocate(const Base& base) {
  static const char* const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double bytes = double(base.nbytes());
  size_t u = 0;
  while (u + 1 < std::size(units) && bytes >= 1023.5) {
    bytes /= 1024;
    ++u;
  }
  char size[32];
  std::snprintf(size, sizeof size, u == 0 ? "%.0f %s" : "%.3g %s", bytes, units[u]);
  return "Unable to allocate " + std::string(size) + " for an array with " +
         std::to_string(base.nelem) + " elements of data type " +
         std::string(dtype_name(base.dtype));
}

} // namespace hassium
