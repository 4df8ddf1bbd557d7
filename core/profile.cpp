// Profiling counters: sum and printout, both generated from HS_PROFILE_COUNTERS.
#include "core/profile.h"

#include <iomanip>
#include <ostream>

namespace hassium {

ProfileCounters& ProfileCounters::operator+=(const ProfileCounters& o) {
#define HS_X(field, type, label) field += o.field;
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
  return *this;
}

void print_profile(std::ostream& os, const ProfileCounters& c) {
  os << "hassium profile:\n";
#define HS_X(field, type, label)                                                                   \
  os << "  " << std::left << std::setw(30) << label ": " << std::right << c.field << "\n";
  HS_PROFILE_COUNTERS(HS_X)
#undef HS_X
}

} // namespace hassium
