/* sgemm_ceiling.c - OpenBLAS single-precision GEMM throughput on this CPU,
 * the ceiling the bench compares convolution layers against.
 *
 * For each shape C[M,N] = A[M,K] * B[K,N] (row-major, no transpose) it runs
 * cblas_sgemm `reps` times after one warm-up call, in `passes` passes over
 * all shapes, and prints the best (shortest) time as GFLOP/s = 2*M*N*K / t. Shapes: 1024^3 and the GEMMs an
 * im2col convolution of the bench's conv layers would do (M = Cout,
 * N = Hout*Wout, K = Cin*kh*kw).
 *
 * Run with OPENBLAS_CORETYPE=SkylakeX OPENBLAS_NUM_THREADS=1: Debian's
 * OpenBLAS 0.3.21 does not recognise this CPU and otherwise falls back to
 * slow SSE3 kernels. Output: one line per shape,
 *   sgemm M N K best_seconds gflops
 * Build: gcc -O2 bench/sgemm_ceiling.c -o sgemm_ceiling -lopenblas
 * Usage: sgemm_ceiling [reps [passes]] (default 20 3) */
#define _POSIX_C_SOURCE 199309L
#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static float *rnd(size_t n, unsigned *seed)
{
    float *p = aligned_alloc(64, ((n * sizeof(float) + 63) / 64) * 64);
    if (!p) {
        perror("sgemm_ceiling: alloc");
        exit(1);
    }
    for (size_t i = 0; i < n; i++) {
        *seed = *seed * 1103515245u + 12345u;
        p[i] = (float)((*seed >> 8) & 0xffff) / 65536.0f - 0.5f;
    }
    return p;
}

int main(int argc, char **argv)
{
    static const int shapes[][3] = {
        {1024, 1024, 1024},
        {256, 196, 2304},  /* 3x3 256->256 at 14x14 (resnet18/50) */
        {512, 49, 4608},   /* 3x3 512->512 at 7x7 (resnet18/50) */
        {256, 196, 1024},  /* 1x1 1024->256 at 14x14 (resnet50) */
        {64, 3136, 576},   /* 3x3 64->64 at 56x56 (resnet18) */
        {128, 784, 1152},  /* 3x3 128->128 at 28x28 (resnet18) */
    };
    enum { NS = sizeof shapes / sizeof shapes[0] };
    int reps = argc > 1 ? atoi(argv[1]) : 20, passes = argc > 2 ? atoi(argv[2]) : 3;
    if (reps < 1)
        reps = 1;
    if (passes < 1)
        passes = 1;
    unsigned seed = 12345;
    float *A[NS], *B[NS], *C[NS];
    double best[NS];
    for (int s = 0; s < NS; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        A[s] = rnd((size_t)M * K, &seed);
        B[s] = rnd((size_t)K * N, &seed);
        C[s] = rnd((size_t)M * N, &seed);
        best[s] = 1e30;
    }
    /* Several passes over all shapes, best per shape: a burst of load from
     * other processes on a shared machine spoils one pass, not the figure. */
    for (int p = 0; p < passes; p++)
        for (int s = 0; s < NS; s++) {
            int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
            cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A[s], K, B[s], N, 0.0f, C[s], N);
            for (int r = 0; r < reps; r++) {
                double t0 = now();
                cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A[s], K, B[s], N, 0.0f,
                            C[s], N);
                double t = now() - t0;
                if (t < best[s])
                    best[s] = t;
            }
        }
    for (int s = 0; s < NS; s++) {
        int M = shapes[s][0], N = shapes[s][1], K = shapes[s][2];
        printf("sgemm %d %d %d %.9f %.2f\n", M, N, K, best[s], 2.0 * M * N * K / best[s] / 1e9);
        free(A[s]);
        free(B[s]);
        free(C[s]);
    }
    return 0;
}
