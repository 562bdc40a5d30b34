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
/* Seed 002: NVIDIA's oclMatVecMul, kernel Coalesced3, made right on every device. */
__kernel void MatVecMulCoalesced3(const __global float* M,
                                  const __global float* V,
                                  uint width, uint height,
                                  __global float* W,
                                  __local float* partialDotProduct)
{
   // Each work-group computes multiple elements of W
   for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
      const __global float* row = M + y * width;

      // Each work-item accumulates as many products as necessary
      // into local variable "sum"
      float sum = 0;
      for (uint x = get_local_id(0); x < width; x += get_local_size(0))
         sum += row[x] * V[x];

      // Each partial dot product is stored in shared memory
      partialDotProduct[get_local_id(0)] = sum;

      // Perform parallel reduction to add each work-item's
      // partial dot product together

      // Synchronize to make sure each work-item is done writing to
      // partialDotProduct
      barrier(CLK_LOCAL_MEM_FENCE);

      // A tree of additions, with a barrier after every step: each step reads what
      // other work-items wrote in the step before, and OpenCL runs no work-items in
      // lock-step unless a barrier makes them wait
      for (uint stride = get_local_size(0); stride > 0; stride /= 2) {
         if (get_local_id(0) < stride)
            partialDotProduct[get_local_id(0)] += partialDotProduct[get_local_id(0) + stride];
         barrier(CLK_LOCAL_MEM_FENCE);
      }

      // Write the result of the reduction to global memory
      if (get_local_id(0) == 0)
         W[y] = partialDotProduct[0];

      // Synchronize to make sure the first work-item is done with
      // reading partialDotProduct
      barrier(CLK_LOCAL_MEM_FENCE);
   }
}
