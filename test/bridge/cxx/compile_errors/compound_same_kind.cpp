// Must not compile: int32 += float64 cannot cast the float64 result back (NumPy's same_kind).
#include <hassium/hassium.h>
int main() {
  hassium::array<int32_t> a = hassium::ones<int32_t>({3});
  a += 0.5;
  return int(a.size());
}
