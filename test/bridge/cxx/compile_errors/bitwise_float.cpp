// Must not compile: bitwise and is defined for bool and integers only.
#include <hassium/hassium.h>
int main() { return int((hassium::ones<double>({3}) & 1).size()); }
