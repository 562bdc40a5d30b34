#include "../common.h"
#define THRICE(x) (3 * (x))
