// Several generated kernel programs as one: a flush's new kernels compile together, so the device
// compiler's fixed cost (PoCL preprocessing its OpenCL C headers, NVRTC's start-up) is paid once
// per batch instead of once per kernel.
#pragma once

#include <string>
#include <vector>

#include "ve/gpu/dialect.h"

namespace hassium::gpu {

// What every generated program starts with: the dialect's prelude, the shared helpers
// (ve/gpu/prelude.h) and the group size macro. The rest of a program is its body.
std::string program_header(const Dialect& dialect);

// Whether `source` starts with `header` (then it can join a batch).
bool has_header(const std::string& source, const std::string& header);

// What the i-th program of a batch appends to its entry names ("hs_elements" -> "hs_elements_b3").
std::string batch_suffix(size_t i);

// One program of `sources` (each starts with `header`): the header once, then body i with its
// entries (kernel_source.h) and its params type renamed to <name> + batch_suffix(i) by macros
// defined before it and undefined after it, with the body's own macros. C and C++ alike: the
// same text for OpenCL C and CUDA.
std::string batch_source(const std::string& header, const std::vector<const std::string*>& sources);

// The programs batch_source() joined into `batch` (each as generated, if it ended in a newline),
// in order; empty when `batch` is not such a program (a lone program, say).
std::vector<std::string> batch_programs(const std::string& header, const std::string& batch);

} // namespace hassium::gpu
