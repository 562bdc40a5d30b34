/*---
name = "Seed 000: tiled (int, column-major, printf)"
family = "matmul"
kernel = "hello_kernel"
args = ["A", "B", "C", "M", "N", "K"]
global = ["M", "N"]
local = ["TS", "TS"]
sizes = ["L0 == TS", "L1 == TS", "M % TS == 0", "N % TS == 0", "K % TS == 0"]
dtype = "int32"
layout = "column-major"
[defines]
TS = 16
[allowed]
TS = [4, 8, 16, 32]
[about]
source = "seed 000"
bug = "numTiles = K/TS rounds down and nothing is bounds-checked, so unless M, N and K are all multiples of TS it skips the last part of the sum and reads and writes outside the matrices."
text = """The blog's local-memory kernel (after Nugteren's tutorial), on column-major integer
matrices: a TS×TS work-group loads a TS×TS tile of A and of B into local memory, waits at a
barrier, multiplies the tiles out of local memory and waits again before the next tile, so
each global element is fetched TS times less often. The author's debugging printf calls
are kept: they print for every work-item and every tile, which costs far more time than the
arithmetic, so try it on small sizes."""
---*/

/* TS is set by the host (-DTS=16), as the seed's host code did with #define TS 16.
   The kernel is as written in seed 000, line breaks restored, printf calls included. */
__kernel void hello_kernel(const __global int* A,
                     const __global int* B,
                     __global int* C, int M,  int N,  int K) {
    // Thread identifiers
    const int row = get_local_id(0); // Local row ID (max: TS)
    const int col = get_local_id(1); // Local col ID (max: TS)
    const int globalRow = TS*get_group_id(0) + row; // Row ID of C (0..M)
    const int globalCol = TS*get_group_id(1) + col; // Col ID of C (0..N)

    // Local memory to fit a tile of TS*TS elements of A and B
    __local int Asub[TS][TS];
    __local int Bsub[TS][TS];

    // Initialise the accumulation register
    int acc = 0;

    // Loop over all tiles
    const int numTiles = K/TS;
    for (int t=0; t<numTiles; t++) {

        // Load one tile of A and B into local memory
        const int tiledRow = TS*t + row;
        const int tiledCol = TS*t + col;
        Asub[col][row] = A[tiledCol*M + globalRow];
        Bsub[col][row] = B[globalCol*K + tiledRow];
        printf("Asub[%d][%d]=A[%d]=%d\t",col,row,tiledCol*M + globalRow,A[tiledCol*M + globalRow]);

        // Synchronise to make sure the tile is loaded
        barrier(CLK_LOCAL_MEM_FENCE);

        // Perform the computation for a single tile
        for (int k=0; k<TS; k++) {
            acc += Asub[k][row] * Bsub[col][k];
            //printf("acc[%d][%d]=%d\n",k,row,Asub[k][row]);
        }
        printf("acc = %d\n",acc);

        // Synchronise before loading the next tile
        barrier(CLK_LOCAL_MEM_FENCE);
    }

    // Store the final result in C
    C[globalCol*M + globalRow] = acc;
}
