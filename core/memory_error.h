// The text of NumPy's MemoryError for a base that cannot get memory, one definition for every
// allocator (the node VEM's pool, a GPU engine's device memory).
#pragma once

#include <string>

#include "core/base.h"

namespace hassium {

// "Unable to allocate 7.28 TiB for an array with 10 elements of data type float64" (the size
// with three significant digits, as NumPy prints it).
std::string unable_to_allocate(const Base& base);

} // namespace hassium
