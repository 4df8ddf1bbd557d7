// pinned(): a thread_local's address computed once per use site, not once per access.
#pragma once

namespace hassium {

// In a shared library each access to a thread_local may compute its address again (a call to
// __tls_get_addr), also through a reference bound to it: GCC re-derives the address after every
// call inside a loop instead of keeping it (a per-flush pass over thousands of operands made
// one such call per operand). The empty asm hides where the pointer came from, so the compiler
// keeps it in a register or on the stack like any other pointer.
//   thread_local PointerIndex tls_ids;
//   PointerIndex& ids = pinned(tls_ids);
template <typename T> inline T& pinned(T& tls) {
  T* p = &tls;
  asm("" : "+r"(p));
  return *p;
}

} // namespace hassium
