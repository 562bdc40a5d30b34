// Included by includes.py's kernels: one from the folder the program runs in, one through -I.
#define WEIGHT 3.0f
