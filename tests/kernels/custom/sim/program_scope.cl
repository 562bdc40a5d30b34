// Our own kernel: program-scope variables (OpenCL C 2.0), read by every work-item.
global int table[4] = {5, 6, 7, 8};
constant int bias[2] = {100, 200};

__kernel void program_scope(__global int* out)
{
    int i = get_global_id(0);
    out[i] = table[i] * 2 + bias[i % 2];
}
