/*---
name = "Nine-point stencil through a local tile with a halo (SHOC Stencil2D style)"
family = "custom"
kernel = "stencil_kernel"
global = ["cdiv(W, LX) * LX", "cdiv(H, LY) * LY"]
local = ["LX", "LY"]
[sizes]
W = 45
H = 37
[defines]
LX = 16
LY = 8
[args.data]
buffer = "float"
count = "H * W"
access = "read"
shape = ["H", "W"]
[args.newData]
buffer = "float"
count = "H * W"
access = "write"
shape = ["H", "W"]
result = true
writes = "all"
[args.width]
scalar = "int"
value = "W"
[args.height]
scalar = "int"
value = "H"
[args.wCenter]
scalar = "float"
value = 0.25
[args.wCardinal]
scalar = "float"
value = 0.15
[args.wDiagonal]
scalar = "float"
value = 0.05
[reference]
terms = 9
# the grid is surrounded by zeros: np.pad(data, 1) holds each point's neighbours
numpy = """wCenter * data
    + wCardinal * (np.pad(data, 1)[:-2, 1:-1] + np.pad(data, 1)[2:, 1:-1]
                   + np.pad(data, 1)[1:-1, :-2] + np.pad(data, 1)[1:-1, 2:])
    + wDiagonal * (np.pad(data, 1)[:-2, :-2] + np.pad(data, 1)[:-2, 2:]
                   + np.pad(data, 1)[2:, :-2] + np.pad(data, 1)[2:, 2:])"""
[about]
source = "our own test kernel, in the style of SHOC's Stencil2D (its default weights)"
text = "Each work-group loads its tile and a one-point halo (zeros outside the grid) into local memory, then weighs the centre, the four cardinal and the four diagonal neighbours."
---*/
#line 1
#define TW (LX + 2)
#define TH (LY + 2)

__kernel void stencil_kernel(__global const float* data, __global float* newData,
                             int width, int height,
                             float wCenter, float wCardinal, float wDiagonal)
{
    __local float sh[TH][TW];
    const int lx = get_local_id(0), ly = get_local_id(1);
    const int x0 = get_group_id(0) * LX - 1, y0 = get_group_id(1) * LY - 1;

    for (int k = ly * LX + lx; k < TH * TW; k += LX * LY) {
        const int ty = k / TW, tx = k % TW;
        const int gx = x0 + tx, gy = y0 + ty;
        sh[ty][tx] = (gx >= 0 && gx < width && gy >= 0 && gy < height)
                         ? data[gy * width + gx] : 0.0f;
    }
    barrier(CLK_LOCAL_MEM_FENCE);

    const int x = get_global_id(0), y = get_global_id(1);
    if (x >= width || y >= height)
        return;
    const int tx = lx + 1, ty = ly + 1;
    const float cardinal = sh[ty - 1][tx] + sh[ty + 1][tx] + sh[ty][tx - 1] + sh[ty][tx + 1];
    const float diagonal = sh[ty - 1][tx - 1] + sh[ty - 1][tx + 1]
                         + sh[ty + 1][tx - 1] + sh[ty + 1][tx + 1];
    newData[y * width + x] = wCenter * sh[ty][tx] + wCardinal * cardinal + wDiagonal * diagonal;
}
