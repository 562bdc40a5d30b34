/*---
name = "Local vector, in tiles with barriers"
family = "rowdot"
kernel = "rowdot_local_vector"
args = ["D", "RESULT", "VECTOR", "MAT1", "MAT2", "FACTOR"]
global = ["D"]
local = ["64"]
[defines]
TILE = 1024
[counterpart]
variant = "group-row"
why = "a work-group per row"
[about]
source = "seed 004 optimisation #1, corrected: any D, bounds checks, barriers"
bug = ""
text = """Optimisation #1 done safely for any D: the vector goes through local memory a
TILE at a time, with a barrier after each copy (every element copied before anyone reads
it) and one before the next copy (nobody still reading the old tile). Each work-item
still owns a whole row, so the matrix reads stay uncoalesced; the copy only saves vector
reads, which today's caches mostly serve anyway."""
---*/

__kernel void rowdot_local_vector(const int D,
                                  __global float* result,
                                  const __global float* vector,
                                  const __global float* matrix,
                                  const __global float* matrix2,
                                  const float factor)
{
    __local float tile[TILE];
    const int y = get_global_id(0);         // this work-item's row
    const int lid = get_local_id(0);
    const int ls = get_local_size(0);
    // size_t: y * D overflows an int once D * D passes 2^31
    const size_t rowStart = (size_t)y * D;
    float sum = 0.0f;

    // Every work-item runs every trip of this loop (its bounds do not depend on y),
    // so all of them reach the barriers, including those past the last row.
    for (int base = 0; base < D; base += TILE) {
        const int n = min(TILE, D - base);  // the last tile may be short

        barrier(CLK_LOCAL_MEM_FENCE);       // everyone is done with the previous tile
        for (int i = lid; i < n; i += ls)   // the group copies the tile together
            tile[i] = vector[base + i];
        barrier(CLK_LOCAL_MEM_FENCE);       // the whole tile is in place

        if (y < D)
            for (int k = 0; k < n; k++)
                sum += tile[k] * matrix[rowStart + base + k] * matrix2[rowStart + base + k];
    }
    if (y < D)
        result[y] = sum * factor;
}
