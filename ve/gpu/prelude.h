// The helper functions every generated kernel includes after its dialect's prelude.
#pragma once

namespace hassium::gpu {

// C source accepted by OpenCL C 1.2 and CUDA C++ alike (it uses only the dialect's macros).
const char* shared_prelude();

} // namespace hassium::gpu
