// Must not compile: complex numbers have no order (LESS is not defined for them).
#include <complex>
#include <hassium/hassium.h>
int main() {
  auto a = hassium::ones<std::complex<double>>({3});
  return int((a < a).size());
}
