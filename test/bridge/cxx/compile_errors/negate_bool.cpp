// Must not compile: NumPy has no negative for bool (use logical_not or ~).
#include <hassium/hassium.h>
int main() { return int((-hassium::ones<bool>({3})).size()); }
