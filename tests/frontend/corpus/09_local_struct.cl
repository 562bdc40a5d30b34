typedef struct {
    float v;
    int count;
} cell_t;

__kernel void cells_demo(__global const float *in, __global float *out, __local cell_t *cells)
{
    int l = get_local_id(0);
    cells[l].v = in[get_global_id(0)];
    cells[l].count = 1;
    barrier(CLK_LOCAL_MEM_FENCE);
    out[get_global_id(0)] = cells[l ^ 1].v;
}
