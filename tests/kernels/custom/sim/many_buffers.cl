// Eighteen buffers: more than a four-bit buffer field could name. Each output is its input
// plus its own number; the last one's store is one element past its end.
__kernel void many_buffers(__global const int* i0, __global const int* i1,
                           __global const int* i2, __global const int* i3,
                           __global const int* i4, __global const int* i5,
                           __global const int* i6, __global const int* i7,
                           __global const int* i8, __global int* o0, __global int* o1,
                           __global int* o2, __global int* o3, __global int* o4,
                           __global int* o5, __global int* o6, __global int* o7,
                           __global int* o8)
{
    int g = get_global_id(0);
    o0[g] = i0[g];
    o1[g] = i1[g] + 1;
    o2[g] = i2[g] + 2;
    o3[g] = i3[g] + 3;
    o4[g] = i4[g] + 4;
    o5[g] = i5[g] + 5;
    o6[g] = i6[g] + 6;
    o7[g] = i7[g] + 7;
    o8[g + 1] = i8[g] + 8;
}
