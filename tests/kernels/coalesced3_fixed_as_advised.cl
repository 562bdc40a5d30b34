/*---
name = "Coalesced3 fixed as the trace advises"
family = "matvec"
kernel = "MatVecMulCoalesced3"
args = ["MAT", "VEC", "WIDTH", "HEIGHT", "OUT", "SCRATCH"]
global = ["2 * COMPUTE_UNITS * L0"]
local = ["256"]
sizes = ["L0 % 64 == 0", "L0 <= 512", "is_pow2(L0)"]
[about]
source = "seed 002 (NVIDIA OpenCL SDK oclMatVecMul)"
bug = ""
text = """NVIDIA's Coalesced3 with each reduction step split as the findings advise: read into a private variable, a barrier every work-item reaches, write back, a barrier."""
---*/

/* Test data: seed 002's MatVecMulCoalesced3, changed only as the trace's advice says. Every
   step that both read and wrote partialDotProduct is split into a read into a private
   variable and a write, with barrier(CLK_LOCAL_MEM_FENCE) between them and after the write;
   the conditions that only some work-items take are closed before each barrier and
   reopened after it. */
#define WARP_SIZE 32
__kernel void MatVecMulCoalesced3(const __global float* M,
                                  const __global float* V,
                                  uint width, uint height,
                                  __global float* W,
                                  __local float* partialDotProduct)
{
   for (uint y = get_group_id(0); y < height; y += get_num_groups(0)) {
      const __global float* row = M + y * width;
      float sum = 0;
      for (uint x = get_local_id(0); x < width; x += get_local_size(0))
         sum += row[x] * V[x];
      partialDotProduct[get_local_id(0)] = sum;
      barrier(CLK_LOCAL_MEM_FENCE);

      uint id = get_local_id(0) & (WARP_SIZE - 1);
      float warpResult = 0.0f;
      float v = 0.0f;
      volatile __local float* p = partialDotProduct + 2 * get_local_id(0) - id;
      if (get_local_id(0) < get_local_size(0) / 2)
         v = p[0] + p[32];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         p[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         v = p[0] + p[16];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         p[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         v = p[0] + p[8];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         p[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         v = p[0] + p[4];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         p[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         v = p[0] + p[2];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         p[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         v = p[0] + p[1];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         p[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < get_local_size(0) / 2)
         warpResult = p[0];

      barrier(CLK_LOCAL_MEM_FENCE);
      if (id == 0)
         partialDotProduct[get_local_id(0) / WARP_SIZE] = warpResult;
      barrier(CLK_LOCAL_MEM_FENCE);

      uint size = get_local_size(0) / (2 * WARP_SIZE);
      volatile __local float* q = partialDotProduct + get_local_id(0);
      if (get_local_id(0) < size / 2 && size >= 8)
         v = q[0] + q[4];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < size / 2 && size >= 8)
         q[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < size / 2 && size >= 4)
         v = q[0] + q[2];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < size / 2 && size >= 4)
         q[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < size / 2 && size >= 2)
         v = q[0] + q[1];
      barrier(CLK_LOCAL_MEM_FENCE);
      if (get_local_id(0) < size / 2 && size >= 2)
         q[0] = v;
      barrier(CLK_LOCAL_MEM_FENCE);

      if (get_local_id(0) == 0)
         W[y] = partialDotProduct[0];
      barrier(CLK_LOCAL_MEM_FENCE);
   }
}
