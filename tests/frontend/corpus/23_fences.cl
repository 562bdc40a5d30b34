#define BOTH (CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)

__kernel void fences(__global int *flag)
{
    mem_fence(CLK_GLOBAL_MEM_FENCE);
    read_mem_fence(CLK_LOCAL_MEM_FENCE);
    write_mem_fence(CLK_GLOBAL_MEM_FENCE);
    barrier(BOTH);
    work_group_barrier(CLK_GLOBAL_MEM_FENCE);
}
