// IndexOutOfBounds: the UserError an engine throws for an index outside its array, with the
// index and the bound as data (frontends phrase their own message: Python's IndexError).
#pragma once

#include <cstdint>
#include <string>

#include "core/error.h"

namespace hassium {

// An index outside its array found while executing (GATHER, SCATTER, COND_SCATTER): the index
// value and the size of the view it addresses (the index must stay in [0, bound)).
class IndexOutOfBounds : public UserError {
public:
  IndexOutOfBounds(const std::string& msg, int64_t index, int64_t bound)
      : UserError(msg), index(index), bound(bound) {}
  int64_t index;
  int64_t bound;
};

} // namespace hassium
