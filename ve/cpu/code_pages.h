// Dropping the compiler's resident code pages once a flush's kernels are compiled.
#pragma once

#include <cstddef>

namespace hassium {
namespace cpu {

// Gives back to the OS the resident pages of the read-only segments (code, constants) of the
// shared object or executable holding this function, where the LLVM JIT lives when libhassium
// links it statically, and trims malloc's free memory (what the compiler allocated and freed).
// The pages are file-backed and unmodified, so the next access reads them back from the page
// cache (a minor fault); only the resident set shrinks (~15-25 MB after a compile, which
// otherwise stays resident for the whole run and adds to the peak next to the arrays).
// Writable segments are never touched. Returns the bytes advised away.
size_t drop_code_pages();

} // namespace cpu
} // namespace hassium
