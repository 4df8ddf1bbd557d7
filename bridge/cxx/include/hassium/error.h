// hassium::error: what the C++ API throws for bad input (shape mismatch, bad index or axis).
#pragma once

#include "core/error.h"

namespace hassium {

// The runtime's UserError: catching hassium::error also catches configuration and bytecode
// errors raised underneath. The message names the shapes, indices or axis at fault.
using error = UserError;

} // namespace hassium
