# ve/cpu/llvm_link.cmake: how targets that contain the CPU engine link LLVM (two interface targets).
#
# hassium_llvm_static: LLVM's static component libraries, for the one library a Python process
# loads (libhassium.so; it sets the target property HASSIUM_LLVM_STATIC). The shared libLLVM costs
# ~48 MB of resident memory at load (all of its relocations, ~600 static constructors, the pages
# around them); linked statically, --gc-sections drops the code the engine cannot reach and
# --exclude-libs keeps LLVM's symbols out of libhassium's dynamic symbol table (fewer symbols to
# bind; no clash with another LLVM in the process). The link takes ~7 s (GNU ld).
# hassium_llvm_shared: the shared libLLVM, for every other target linking the engine (tests, the
# CLI, benchmarks): each links in a second, and their memory use does not matter.
# Used by ve/cpu/CMakeLists.txt as
#   $<IF:$<BOOL:$<TARGET_PROPERTY:HASSIUM_LLVM_STATIC>>,hassium_llvm_static,hassium_llvm_shared>
# which CMake evaluates for the target being linked.
set(HASSIUM_LLVM_COMPONENTS core orcjit passes linker native support)

add_library(hassium_llvm_shared INTERFACE)
# (Its headers too, for the tests that build LLVM IR themselves: test_cpu_llvm_errors.cpp.)
target_include_directories(hassium_llvm_shared SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
if(TARGET LLVM)
  target_link_libraries(hassium_llvm_shared INTERFACE LLVM)
else()
  llvm_map_components_to_libnames(_hs_llvm_libs ${HASSIUM_LLVM_COMPONENTS})
  target_link_libraries(hassium_llvm_shared INTERFACE ${_hs_llvm_libs})
endif()

# LLVMSupport asks for zstd::libzstd_shared; without zstd's development files (only the runtime
# library installed) LLVMConfig does not define it, so it names the runtime library here.
if(NOT TARGET zstd::libzstd_shared)
  find_library(HASSIUM_ZSTD_RUNTIME NAMES zstd libzstd.so.1 REQUIRED)
  add_library(zstd::libzstd_shared UNKNOWN IMPORTED)
  set_target_properties(zstd::libzstd_shared PROPERTIES IMPORTED_LOCATION ${HASSIUM_ZSTD_RUNTIME})
endif()

add_library(hassium_llvm_static INTERFACE)
llvm_map_components_to_libnames(_hs_llvm_static_libs ${HASSIUM_LLVM_COMPONENTS})
target_link_libraries(hassium_llvm_static INTERFACE ${_hs_llvm_static_libs})
# --exclude-libs takes archive file names: every LLVM archive (the components' dependencies too).
file(GLOB _hs_llvm_archives RELATIVE ${LLVM_LIBRARY_DIR} ${LLVM_LIBRARY_DIR}/libLLVM*.a)
list(JOIN _hs_llvm_archives ":" _hs_llvm_archives)
include(CheckLinkerFlag)
# Packed relative relocations (DT_RELR, glibc >= 2.36): ~100k relocations in ~30 KB, not 2.4 MB.
check_linker_flag(CXX "LINKER:-z,pack-relative-relocs" HASSIUM_LINKER_RELR)
target_link_options(hassium_llvm_static INTERFACE
  "LINKER:--gc-sections" "LINKER:--exclude-libs,${_hs_llvm_archives}"
  # libz3 and the other libraries only the dropped code needs are not loaded.
  "LINKER:--as-needed"
  $<$<BOOL:${HASSIUM_LINKER_RELR}>:LINKER:-z,pack-relative-relocs>)
