/* Samples exchanged between neighbours through local memory the host sizes: copied whole,
   the tag never set; one kernel reads only value and weight, the other the tag too. */
typedef struct {
    float value;
    float weight;
    int tag;
} Sample;

#define STAGE(tile, l, g, v, w)      \
    do {                             \
        (tile)[l].value = (v)[g];    \
        (tile)[l].weight = (w)[g];   \
    } while (0)

__kernel void swap_weigh(__global const float *v, __global const float *w, __global float *out,
                         __local Sample *tile)
{
    const int l = get_local_id(0), g = get_global_id(0);
    STAGE(tile, l, g, v, w);
    barrier(CLK_LOCAL_MEM_FENCE);
    Sample t = tile[l ^ 1];
    out[g] = t.value * t.weight;
}

__kernel void swap_weigh_tagged(__global const float *v, __global const float *w,
                                __global float *out, __local Sample *tile)
{
    const int l = get_local_id(0), g = get_global_id(0);
    STAGE(tile, l, g, v, w);
    barrier(CLK_LOCAL_MEM_FENCE);
    Sample t = tile[l ^ 1];
    out[g] = t.value * t.weight + (float)t.tag;
}
