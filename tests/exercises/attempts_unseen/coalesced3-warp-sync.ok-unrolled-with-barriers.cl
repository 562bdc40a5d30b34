/*---
name = "Exercise: NVIDIA's warp-synchronous Coalesced3"
family = "custom"
kernel = "MatVecMulCoalesced3"
global = ["4 * L0"]
local = ["128"]
[sizes]
WIDTH = 256
HEIGHT = 8
[args.M]
buffer = "float"
count = "HEIGHT * WIDTH"
access = "read"
shape = ["HEIGHT", "WIDTH"]
[args.V]
buffer = "float"
count = "WIDTH"
access = "read"
[args.width]
scalar = "uint"
value = "WIDTH"
[args.height]
scalar = "uint"
value = "HEIGHT"
[args.W]
buffer = "float"
count = "HEIGHT"
access = "write"
result = true
[args.partialDotProduct]
local = "float"
count = "L0"
[reference]
numpy = "M @ V"
terms = "WIDTH"
---*/
#define LID get_local_id(0)
__kernel void MatVecMulCoalesced3(const __global float* M,
                                  const __global float* V,
                                  uint width, uint height,
                                  __global float* W,
                                  __local float* partialDotProduct)
{
   __local float* p = partialDotProduct;
   for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
      const __global float* row = M + y * width;
      float sum = 0;
      for (uint x = LID; x < width; x += get_local_size(0))
         sum = mad(row[x], V[x], sum);
      p[LID] = sum;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 64) p[LID] += p[LID + 64];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 32) p[LID] += p[LID + 32];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 16) p[LID] += p[LID + 16];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 8) p[LID] += p[LID + 8];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 4) p[LID] += p[LID + 4];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 2) p[LID] += p[LID + 2];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID < 1) p[LID] += p[LID + 1];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (LID == 0)
         W[y] = p[0];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
}
