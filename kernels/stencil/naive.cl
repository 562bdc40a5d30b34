/*---
name = "Naive: nine global reads per pixel"
family = "stencil"
kernel = "stencil_naive"
args = ["WIDTH", "HEIGHT", "IN", "OUT"]
global = ["WIDTH", "HEIGHT"]
local = ["16", "16"]
[about]
source = "the explorer's own, the textbook 3×3 blur"
bug = ""
text = """One work-item per output pixel. It reads the 3×3 neighbourhood of its pixel straight
from global memory, weights it with [1 2 1; 2 4 2; 1 2 1]/16 and writes one value. Outside
the image a neighbour is clamped to the nearest edge pixel, so a constant image stays
constant. Every input pixel is read nine times, by nine different work-items: the caches
catch most of it, but each read is still an instruction and an address computation. The
tiled variant reads each pixel from global memory about once."""
---*/

__kernel void stencil_naive(const int WIDTH, const int HEIGHT,
                            const __global float* IN,
                            __global float* OUT)
{
    const int x = get_global_id(0);
    const int y = get_global_id(1);
    if (x >= WIDTH || y >= HEIGHT)
        return;

    /* Clamp-to-edge: the neighbours of a border pixel are border pixels. */
    const int xl = max(x - 1, 0);
    const int xr = min(x + 1, WIDTH - 1);
    const int yu = max(y - 1, 0);
    const int yd = min(y + 1, HEIGHT - 1);

    const float up = IN[yu * WIDTH + xl] + 2.0f * IN[yu * WIDTH + x] + IN[yu * WIDTH + xr];
    const float mid = IN[y * WIDTH + xl] + 2.0f * IN[y * WIDTH + x] + IN[y * WIDTH + xr];
    const float down = IN[yd * WIDTH + xl] + 2.0f * IN[yd * WIDTH + x] + IN[yd * WIDTH + xr];
    OUT[y * WIDTH + x] = (up + 2.0f * mid + down) * (1.0f / 16.0f);
}
