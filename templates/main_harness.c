/* main_harness.c - test/bench main pasted into model.c under #ifdef CTVM_MAIN.
 *
 * Usage: ./model IN_DIR OUT_DIR [REPEAT]
 * Reads IN_DIR/in<i>.bin (raw elements of the input's type, native order)
 * for every input, runs
 * the model REPEAT times (default 1, after one warm-up run when REPEAT > 1),
 * writes OUT_DIR/out<i>.bin (and, for an output of data-dependent shape,
 * its actual dims as text in OUT_DIR/out<i>.shape) and prints "ctvm-time: median_ms=... min_ms=...".
 * The model file provides CTVM_MAIN_NIN/NOUT, ctvm_main_in/out (static
 * buffers), ctvm_main_in_bytes/out_bytes and ctvm_main_invoke().
 * With CTVM_PROFILE also defined, each kernel is timed and a table
 * "ctvm-prof: ms/run  %  GFLOP/s  kernel" follows (one line per kernel).
 * This is the only part of a generated file that uses stdio; it is not
 * compiled unless CTVM_MAIN is defined. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double ctvm_main_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int ctvm_main_file(const char *dir, const char *stem, int i, void *buf, long n, int write)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s%d.bin", dir, stem, i);
    FILE *f = fopen(path, write ? "wb" : "rb");
    if (!f) {
        fprintf(stderr, "ctvm-main: cannot open %s\n", path);
        return 1;
    }
    size_t got = write ? fwrite(buf, 1, (size_t)n, f) : fread(buf, 1, (size_t)n, f);
    if (fclose(f) != 0 || got != (size_t)n) {
        fprintf(stderr, "ctvm-main: %s: expected %ld bytes\n", path, n);
        return 1;
    }
    return 0;
}

static int ctvm_main_cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: %s IN_DIR OUT_DIR [REPEAT]\n", argv[0]);
        return 2;
    }
    int repeat = argc > 3 ? atoi(argv[3]) : 1;
    if (repeat < 1)
        repeat = 1;
    for (int i = 0; i < CTVM_MAIN_NIN; i++)
        if (ctvm_main_file(argv[1], "in", i, ctvm_main_in[i], ctvm_main_in_bytes[i], 0))
            return 1;
    static double times[10000];
    if (repeat > 10000)
        repeat = 10000;
    if (repeat > 1 && ctvm_main_invoke() != 0)
        return 1;
    for (int r = 0; r < repeat; r++) {
        double t0 = ctvm_main_now_ms();
        int rc = ctvm_main_invoke();
        times[r] = ctvm_main_now_ms() - t0;
        if (rc != 0) {
            fprintf(stderr, "ctvm-main: run failed with status %d\n", rc);
            return 1;
        }
    }
    for (int i = 0; i < CTVM_MAIN_NOUT; i++) {
        long bytes = ctvm_main_out_bytes[i];
        if (ctvm_main_out_shape[i]) { /* data-dependent: the actual dims, in out<i>.shape */
            char path[4096];
            long long numel = 1;
            snprintf(path, sizeof path, "%s/out%d.shape", argv[2], i);
            FILE *f = fopen(path, "w");
            if (!f)
                return 1;
            for (int k = 0; k < ctvm_main_out_rank[i]; k++) {
                numel *= (long long)ctvm_main_out_shape[i][k];
                fprintf(f, "%lld ", (long long)ctvm_main_out_shape[i][k]);
            }
            fputc('\n', f);
            if (fclose(f) != 0)
                return 1;
            bytes = (long)((numel * ctvm_main_out_bits[i] + 7) / 8);
            if (bytes > ctvm_main_out_bytes[i]) {
                fprintf(stderr, "ctvm-main: output %d: actual size exceeds its bound\n", i);
                return 1;
            }
        }
        if (ctvm_main_file(argv[2], "out", i, ctvm_main_out[i], bytes, 1))
            return 1;
    }
    qsort(times, (size_t)repeat, sizeof times[0], ctvm_main_cmp);
#ifdef CTVM_PROFILE
    {
        double total = 0.0;
        int runs = repeat > 1 ? repeat + 1 : repeat; /* the warm-up run is timed too */
        for (int k = 0; k < CTVM_PROF_N; k++)
            total += ctvm_prof_ms[k];
        for (int k = 0; k < CTVM_PROF_N; k++) {
            double ms = ctvm_prof_ms[k] / runs;
            printf("ctvm-prof: %9.4f ms %5.1f%% %7.1f GFLOP/s  %s\n", ms, 100.0 * ctvm_prof_ms[k] / total,
                   ms > 0 ? ctvm_prof_flop[k] / ms / 1e6 : 0.0, ctvm_prof_name[k]);
        }
    }
#endif
    printf("ctvm-time: median_ms=%.4f min_ms=%.4f runs=%d\n", times[repeat / 2], times[0], repeat);
    return 0;
}
