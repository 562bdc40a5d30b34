// The CUDA twin of kernels/matmul/tiled.cl (matmul/tiled): the same tiles, loads, barriers and
// bounds checks, so that compute-sanitizer's racecheck checks the algorithm the trace records.
//
//   nvcc -O3 -arch=sm_90 -o matmul_tiled benchmarks/matmul_tiled.cu
//   ./matmul_tiled SIZE [LAUNCHES]
//   compute-sanitizer --tool racecheck ./matmul_tiled SIZE [LAUNCHES]
//   nvcc -O3 -arch=sm_90 -DRACY -o matmul_tiled_racy benchmarks/matmul_tiled.cu
//
// -DRACY drops the second __syncthreads (the one after the tile's products), as the racy
// twin of tiled.cl without its second barrier: the next step's tile stores race with this
// step's reads.
//
// Prints one line per launch: "launch I: MS ms" (host clock around the launch and a
// synchronize, so a checker's own work on the launch is inside it), then the result's
// largest error against a float64 reference of a few rows.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#ifndef TS
#define TS 16
#endif

__global__ void matmul_tiled(const int M, const int N, const int K, const float* A,
                             const float* B, float* C)
{
    const int tx = threadIdx.x;
    const int ty = threadIdx.y;
    const int col = blockIdx.x * TS + tx;
    const int row = blockIdx.y * TS + ty;
    __shared__ float Asub[TS][TS];
    __shared__ float Bsub[TS][TS];
    float acc = 0.0f;
    const int numTiles = (K + TS - 1) / TS;
    for (int t = 0; t < numTiles; t++) {
        const int kA = t * TS + tx;
        const int kB = t * TS + ty;
        Asub[ty][tx] = (row < M && kA < K) ? A[row * K + kA] : 0.0f;
        Bsub[ty][tx] = (kB < K && col < N) ? B[kB * N + col] : 0.0f;
        __syncthreads();
        for (int k = 0; k < TS; k++)
            acc += Asub[ty][k] * Bsub[k][tx];
#ifndef RACY
        __syncthreads();
#endif
    }
    if (row < M && col < N)
        C[row * N + col] = acc;
}

static void check(cudaError_t status, const char* what)
{
    if (status != cudaSuccess) {
        std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(status));
        std::exit(1);
    }
}

int main(int argc, char** argv)
{
    const int n = argc > 1 ? std::atoi(argv[1]) : 256;
    const int launches = argc > 2 ? std::atoi(argv[2]) : 4;
    const size_t count = size_t(n) * n;
    std::vector<float> a(count), b(count), c(count);
    srand(1);
    for (size_t i = 0; i < count; i++) {
        a[i] = float(rand()) / RAND_MAX - 0.5f;
        b[i] = float(rand()) / RAND_MAX - 0.5f;
    }
    float *da, *db, *dc;
    check(cudaMalloc(&da, count * 4), "cudaMalloc A");
    check(cudaMalloc(&db, count * 4), "cudaMalloc B");
    check(cudaMalloc(&dc, count * 4), "cudaMalloc C");
    check(cudaMemcpy(da, a.data(), count * 4, cudaMemcpyHostToDevice), "upload A");
    check(cudaMemcpy(db, b.data(), count * 4, cudaMemcpyHostToDevice), "upload B");
    const dim3 block(TS, TS);
    const dim3 grid((n + TS - 1) / TS, (n + TS - 1) / TS);
    for (int i = 0; i < launches; i++) {
        const auto start = std::chrono::steady_clock::now();
        matmul_tiled<<<grid, block>>>(n, n, n, da, db, dc);
        check(cudaGetLastError(), "launch");
        check(cudaDeviceSynchronize(), "kernel");
        const auto stop = std::chrono::steady_clock::now();
        std::printf("launch %d: %.3f ms\n", i,
                    std::chrono::duration<double, std::milli>(stop - start).count());
        std::fflush(stdout);
    }
    check(cudaMemcpy(c.data(), dc, count * 4, cudaMemcpyDeviceToHost), "download C");
    double worst = 0.0;
    for (int row = 0; row < n; row += n / 4 > 0 ? n / 4 : 1) {
        for (int col = 0; col < n; col++) {
            double sum = 0.0;
            for (int k = 0; k < n; k++)
                sum += double(a[size_t(row) * n + k]) * double(b[size_t(k) * n + col]);
            worst = std::fmax(worst, std::fabs(sum - double(c[size_t(row) * n + col])));
        }
    }
    std::printf("largest error %.3g\n", worst);
    return worst < 1e-3 ? 0 : 1;
}
