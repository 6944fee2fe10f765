/* schedule_gemm.c - register-tiled schedule of Gemm/MatMul (see
 * schedule_gemm.h). */
#include "schedule_gemm.h"

#include "ir/target.h"
#include "schedule.h"
#include "schedule_tile.h"

typedef struct GemmPlan {
    int mi, ni;      /* stage axes of m and n */
    int64_t MR, NR, L, M, N;
} GemmPlan;

/* One row block of T rows starting at at[mi], over columns [at[ni], at[ni] + cols) */
static Stmt *cols(ComputeCtx *cx, const ComputeStage *st, Expr **at, const GemmPlan *p, int64_t T, int64_t cols)
{
    LoopBuilder *lb = cx->lb;
    Stmt *items[2] = {NULL, NULL};
    Expr *n0 = at[p->ni];
    int64_t nv = p->L > 1 ? cols / p->L : 0, ns = cols - nv * p->L;
    if (nv > 0) {
        Tile t = {.tax = p->mi, .uax = p->ni, .vax = p->ni, .T = T, .U = nv, .L = p->L, .rax = -1, .R = 1};
        items[0] = sched_tile(cx, st, at, &t);
    }
    if (ns > 0) {
        at[p->ni] = nv > 0 ? lx_add(lb, n0, lx_int(lb, nv * p->L)) : n0;
        Tile t = {.tax = p->mi, .uax = p->ni, .vax = -1, .T = T, .U = ns, .L = 1, .rax = -1, .R = 1};
        items[1] = sched_tile(cx, st, at, &t);
        at[p->ni] = n0;
    }
    return ls_seq(lb, 2, items);
}

static Stmt *inner(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user)
{
    const GemmPlan *p = user;
    LoopBuilder *lb = cx->lb;
    int64_t NB = p->NR * p->L;
    /* at[mi], at[ni] hold block indices; the blocks start at index * MR, * NB */
    Expr *mt = at[p->mi], *nt = at[p->ni];
    at[p->mi] = lx_muli(lb, mt, p->MR);
    at[p->ni] = lx_muli(lb, nt, NB);
    int64_t Ms[2] = {p->M >= p->MR ? p->MR : 0, p->M % p->MR}, Ns[2] = {p->N >= NB ? NB : 0, p->N % NB};
    Stmt *c[2][2] = {{0}};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            if (Ms[a] > 0 && Ns[b] > 0)
                c[a][b] = cols(cx, st, at, p, Ms[a], Ns[b]);
    Stmt *bym[2];
    for (int a = 0; a < 2; a++) {
        if (!c[a][0] || !c[a][1])
            bym[a] = c[a][0] ? c[a][0] : c[a][1];
        else
            bym[a] = sched_split_case(lb, nt, p->N / NB, c[a][0], c[a][1]);
    }
    if (!bym[0] || !bym[1])
        return bym[0] ? bym[0] : bym[1];
    return sched_split_case(lb, mt, p->M / p->MR, bym[0], bym[1]);
}

Stmt *schedule_gemm(ComputeCtx *cx, const ComputeStage *st)
{
    int vl = sched_vl(cx);
    int regs = cx->target ? cx->target->n_vregs : 16;
    if (st->n_axes < 2 || st->red != RED_SUM)
        return schedule_stage_default(cx, st);
    GemmPlan p = {.mi = st->n_axes - 2, .ni = st->n_axes - 1, .L = vl > 1 ? vl : 1};
    /* the rows of a tile: the m axis, or when m is 1 (a [S,1,K] x [K,N]
     * product) the nearest outer axis with more than one index */
    for (int i = st->n_axes - 2; i >= 0; i--)
        if (st->extent[i] > 1) {
            p.mi = i;
            break;
        }
    p.M = st->extent[p.mi];
    p.N = st->extent[p.ni];
    if (p.M <= 0 || p.N <= 0)
        return schedule_stage_default(cx, st);
    /* NR columns of registers: two vectors when there are enough columns
     * (scalar: four columns); MR rows take the registers left after the NR
     * values of a B row and the broadcast A element */
    int64_t ncols = (p.N + p.L - 1) / p.L, K = 1;
    for (int r = 0; r < st->n_raxes; r++)
        K *= st->rextent[r];
    p.NR = vl > 1 ? (ncols >= 2 ? 2 : 1) : (p.N >= 4 ? 4 : p.N);
    /* one row (a GEMV: a classifier's K -> 1000), weights cold: ctvm-tune
       on Zen 4 with AVX-512 (medians over all measured candidates of each
       NR): K = 512-1280 fastest with four vectors of columns a tile (0.16
       vs 0.21 ms at NR = 1 for K = 512, 0.33 vs 0.40 for 1024), K = 2048
       with one (0.72 ms; NR = 2 0.85-1.10), where a tile's rows of k lines
       stream best one line a row */
    if (p.M == 1 && vl >= 16)
        p.NR = K > 1536 ? 1 : (ncols >= 4 ? 4 : ncols);
    /* scalar int32 dot products (ctvm.QMatMul on a VL-1 target): the
       accumulators are general-purpose registers (13 on a Cortex-M) and each
       dot needs four more, so one column and at most 4 rows; on a
       microcontroller the smaller code matters as much */
    int scalar_int = vl == 1 && st->acc && st->acc->type == LT_I32;
    if (scalar_int)
        p.NR = 1;
    if (st->knob[1] > 0)
        p.NR = st->knob[1];
    p.MR = (regs - p.NR - 1) / p.NR;
    if (p.MR > (scalar_int ? 4 : 8))
        p.MR = scalar_int ? 4 : 8;
    if (p.MR < 1)
        p.MR = 1;
    if (st->knob[0] > 0)
        p.MR = st->knob[0];
    if (p.MR > p.M)
        p.MR = p.M;
    int64_t NB = p.NR * p.L;
    int axes[CTVM_MAX_RANK];
    int64_t ext[CTVM_MAX_RANK];
    int n = 0;
    for (int i = 0; i < p.ni; i++)
        if (i != p.mi) {
            axes[n] = i;
            ext[n++] = st->extent[i];
        }
    /* Column blocks outside row blocks by default: a B panel (K x NB) stays
       in L1 while the rows of A stream past it. With a short reduction
       (K <= 64: attention's Q.K^T) the panel is small and the output
       dominates: row blocks outside, so the tiles of a row block are written
       left to right instead of one scattered line per row per tile (whisper
       1500x1500 scores: 32 -> 27 ms per layer). knob[2]: 1 rows outside, 2
       columns outside. */
    int rows_outer = st->knob[2] ? st->knob[2] == 1 : K <= 64;
    int64_t next = (p.N + NB - 1) / NB, mext = (p.M + p.MR - 1) / p.MR;
    axes[n] = rows_outer ? p.mi : p.ni;
    ext[n++] = rows_outer ? mext : next;
    axes[n] = rows_outer ? p.ni : p.mi;
    ext[n++] = rows_outer ? next : mext;
    Expr *at[CTVM_MAX_RANK] = {0};
    return sched_fused_outer(cx, st, axes, ext, n, 1, at, inner, &p);
}
