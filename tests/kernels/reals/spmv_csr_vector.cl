/*---
name = "CSR sparse matrix times vector, one row per 32 work-items (SHOC spmv vector style)"
family = "custom"
kernel = "spmv_csr_vector_kernel"
global = ["cdiv(DIM * VW, 128) * 128"]
local = ["128"]
constraints = ["VW <= 128", "128 % VW == 0"]
[sizes]
DIM = 256
NNZ = 8686
VW = 32
[args.val]
buffer = "float"
count = "NNZ"
access = "read"
[args.vec]
buffer = "float"
count = "DIM"
access = "read"
[args.cols]
buffer = "int"
count = "NNZ"
range = [0, 256]
access = "read"
[args.rowDelimiters]
buffer = "int"
count = "DIM + 1"
access = "read"
# rows of 0 to 69 non-zeros, rows 3 and 17 empty
data = [0, 39, 90, 91, 91, 121, 186, 188, 192, 224, 272, 277, 341, 390, 423, 426, 449, 495, 495,
        548, 599, 654, 661, 729, 736, 761, 805, 818, 820, 857, 860, 918, 940, 985, 999, 1012,
        1066, 1078, 1133, 1142, 1154, 1213, 1222, 1256, 1281, 1312, 1349, 1382, 1419, 1480,
        1506, 1562, 1592, 1644, 1669, 1720, 1739, 1743, 1786, 1809, 1827, 1877, 1906, 1975,
        2010, 2067, 2088, 2141, 2164, 2219, 2235, 2247, 2265, 2318, 2333, 2362, 2382, 2424,
        2473, 2476, 2486, 2555, 2598, 2638, 2672, 2728, 2741, 2769, 2791, 2815, 2838, 2891,
        2912, 2975, 2982, 2996, 3035, 3078, 3120, 3152, 3163, 3182, 3185, 3229, 3262, 3310,
        3337, 3339, 3348, 3381, 3388, 3407, 3475, 3511, 3567, 3584, 3626, 3673, 3702, 3742,
        3807, 3846, 3885, 3898, 3939, 3994, 4013, 4026, 4065, 4085, 4131, 4160, 4212, 4224,
        4272, 4335, 4396, 4455, 4460, 4489, 4553, 4591, 4631, 4651, 4673, 4704, 4757, 4771,
        4779, 4785, 4794, 4818, 4887, 4906, 4963, 5012, 5078, 5082, 5100, 5119, 5148, 5204,
        5226, 5293, 5358, 5397, 5463, 5529, 5583, 5604, 5606, 5674, 5690, 5719, 5767, 5809,
        5836, 5883, 5889, 5934, 6002, 6040, 6050, 6069, 6075, 6122, 6161, 6208, 6224, 6247,
        6269, 6333, 6356, 6419, 6450, 6478, 6520, 6564, 6622, 6632, 6664, 6724, 6771, 6816,
        6867, 6880, 6911, 6967, 6975, 7031, 7093, 7158, 7184, 7213, 7276, 7343, 7376, 7383,
        7429, 7450, 7502, 7503, 7534, 7593, 7610, 7657, 7712, 7771, 7831, 7860, 7877, 7927,
        7947, 7972, 7987, 8000, 8002, 8056, 8080, 8137, 8163, 8191, 8252, 8302, 8325, 8352,
        8401, 8434, 8470, 8519, 8572, 8612, 8626, 8657, 8673, 8678, 8686]
[args.dim]
scalar = "int"
value = "DIM"
[args.vecWidth]
scalar = "int"
value = "VW"
[args.out]
buffer = "float"
count = "DIM"
access = "write"
result = true
writes = "all"
[reference]
terms = 69
numpy = "np.diff(np.concatenate(([0], np.cumsum(val * vec[cols])))[rowDelimiters])"
[about]
source = "our own test kernel, in the style of SHOC's spmv_csr_vector_kernel"
text = "VW work-items share a row: each sums every VW-th product, then a tree in local memory adds their partial sums. The reference sums every row at once from prefix sums of the products."
---*/
#line 1
__kernel void spmv_csr_vector_kernel(__global const float* restrict val,
                                     __global const float* restrict vec,
                                     __global const int* restrict cols,
                                     __global const int* restrict rowDelimiters,
                                     const int dim, const int vecWidth,
                                     __global float* restrict out)
{
    __local volatile float partialSums[128];
    int t = get_local_id(0);
    int id = t & (vecWidth - 1);
    int vecsPerBlock = get_local_size(0) / vecWidth;
    int myRow = (get_group_id(0) * vecsPerBlock) + (t / vecWidth);

    float mySum = 0.0f;
    if (myRow < dim) {
        int vecStart = rowDelimiters[myRow];
        int vecEnd = rowDelimiters[myRow + 1];
        for (int j = vecStart + id; j < vecEnd; j += vecWidth) {
            int col = cols[j];
            mySum += val[j] * vec[col];
        }
    }
    partialSums[t] = mySum;
    barrier(CLK_LOCAL_MEM_FENCE);

    /* every work-item reaches every barrier, also those past the last row */
    for (int bar = vecWidth / 2; bar > 0; bar /= 2) {
        if (id < bar)
            partialSums[t] += partialSums[t + bar];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (id == 0 && myRow < dim)
        out[myRow] = partialSums[t];
}
