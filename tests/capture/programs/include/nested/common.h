#define TWICE(x) (2 * (x))
