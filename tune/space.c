/* space.c - knob spaces of the conv and GEMM schedules (see space.h). */
#include "space.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "conv 1x32x7x7x16 r32x16x3x3 #..." -> family, extents, reduction extents */
static int parse_key(const char *key, char *fam, long long *ext, int *n, long long *rext, int *nr)
{
    *n = *nr = 0;
    if (sscanf(key, "%7s", fam) != 1)
        return -1;
    const char *p = strchr(key, ' ');
    if (!p)
        return -1;
    for (p++; *n < 8;) {
        char *end;
        ext[(*n)++] = strtoll(p, &end, 10);
        if (*end != 'x') {
            p = end;
            break;
        }
        p = end + 1;
    }
    if (strncmp(p, " r", 2) == 0)
        for (p += 2; *nr < 8;) {
            char *end;
            rext[(*nr)++] = strtoll(p, &end, 10);
            if (*end != 'x')
                break;
            p = end + 1;
        }
    return 0;
}

static void knob_values(TuneSpace *sp, int k, const int *v, int n, long long max)
{
    sp->n_values[k] = 0;
    for (int i = 0; i < n && sp->n_values[k] < TUNE_MAX_VALUES; i++)
        if (v[i] == 0 || v[i] <= max)
            sp->values[k][sp->n_values[k]++] = v[i];
}

int tune_space_for(const char *key, int n_vregs, TuneSpace *sp)
{
    char fam[8];
    long long e[8], r[8];
    int n, nr;
    memset(sp, 0, sizeof *sp);
    if (parse_key(key, fam, e, &n, r, &nr) != 0)
        return -1;
    sp->n_knobs = 4;
    if (!strcmp(fam, "conv") && n == 5) {
        /* T columns, U channel blocks, R rows (with T), Kc input blocks a chunk */
        static const int T[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 16, 20, 24, 28};
        static const int U[] = {0, 1, 2, 3, 4, 5, 6, 8};
        static const int R[] = {0, 1, 2, 3, 4, 7};
        knob_values(sp, 0, T, (int)(sizeof T / sizeof T[0]), e[3] < n_vregs ? e[3] : n_vregs);
        knob_values(sp, 1, U, (int)(sizeof U / sizeof U[0]), e[1]);
        knob_values(sp, 2, R, (int)(sizeof R / sizeof R[0]), e[2]);
        int kax = nr == 4 ? (r[3] == 1 ? 2 : 0) : -1, nk = 0;
        sp->values[3][nk++] = 0;
        if (kax >= 0) /* proper divisors of the input channel blocks */
            for (long long k = 1; k < r[kax] && nk < 12; k++)
                if (r[kax] % k == 0 && k * 4 >= r[kax] / 8)
                    sp->values[3][nk++] = (int)k;
        sp->n_values[3] = nk;
        return 0;
    }
    if (!strcmp(fam, "gemm") && n >= 2) {
        static const int MR[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 14, 16};
        static const int NR[] = {0, 1, 2, 3, 4};
        static const int ORD[] = {0, 1, 2};
        knob_values(sp, 0, MR, (int)(sizeof MR / sizeof MR[0]), 1 << 30);
        knob_values(sp, 1, NR, (int)(sizeof NR / sizeof NR[0]), 4);
        knob_values(sp, 2, ORD, 3, 2);
        sp->values[3][0] = 0;
        sp->n_values[3] = 1;
        return 0;
    }
    return -1;
}

int tune_space_valid(const char *key, int n_vregs, const int *knobs, char *why, size_t cap)
{
    char fam[8];
    long long e[8], r[8];
    int n, nr;
    if (parse_key(key, fam, e, &n, r, &nr) != 0)
        return 0;
    long long acc = 0, ops = 0;
    if (!strcmp(fam, "conv")) {
        if (!knobs[0] && knobs[2]) { /* R is read only with T */
            snprintf(why, cap, "R without T has no effect");
            return 0;
        }
        long long U = knobs[1] ? knobs[1] : 2, T = knobs[0], R = knobs[2] ? knobs[2] : 1;
        if (T) {
            acc = U * T * R;
            ops = U + 1;
        }
    } else if (!strcmp(fam, "gemm")) {
        long long MR = knobs[0], NR = knobs[1] ? knobs[1] : 2;
        if (MR) {
            acc = MR * NR;
            ops = NR + 1;
        }
    }
    if (acc + ops > n_vregs) {
        snprintf(why, cap, "%lld accumulators and %lld operands exceed %d registers", acc, ops, n_vregs);
        return 0;
    }
    return 1;
}
