/* schedule_conv.c - register-blocked schedule of ctvm.ConvNCHWc (see
 * schedule_conv.h). */
#include "schedule_conv.h"

#include "ir/loop_lower.h"
#include "ir/target.h"
#include "schedule.h"
#include "schedule_tile.h"

typedef struct ConvPlan {
    int64_t T, U, R, L, OCb, OH, OW;
    int unroll_r;    /* Tile.unroll_r */
    int kax;         /* reduction axis of the input channel blocks */
    int64_t Kc, nK;  /* reduction chunks (nK > 1): Kc blocks each, loop kvar */
    LVar *kvar;
} ConvPlan;

/* Bytes of one core's L2 a chunk's input and weights may take: half of a
 * small (512 KB) L2, leaving room for the output and the other tiles. */
#define CONV_L2_BUDGET (256 * 1024)

static void find_loads(const Expr *e, LBuf **bufs, int *n)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD && *n < 4)
        bufs[(*n)++] = e->buf;
    find_loads(e->a, bufs, n);
    find_loads(e->b, bufs, n);
    find_loads(e->c, bufs, n);
}

/* 1 when some load of the body depends on neither the output channel block
 * nor the lane: the broadcast input that U channel blocks share (not so in
 * grouped convolutions, whose input block follows the output block). */
static int shares_input(const Expr *e, const ComputeStage *st)
{
    if (!e)
        return 0;
    if (e->kind == EX_LOAD && !lx_uses_var(e->a, st->axis[1]) && !lx_uses_var(e->a, st->axis[4]))
        return 1;
    return shares_input(e->a, st) || shares_input(e->b, st) || shares_input(e->c, st);
}

/* Elements a load of e moves a step of variable ow, the most of any (for
   the output column axis: the stride times the lanes of a blocked input);
   0 when none is affine in it. */
static int64_t col_stride(const Expr *e, const LVar *ow)
{
    if (!e)
        return 0;
    int64_t c = 0, best = e->kind == EX_LOAD && lx_affine(e->a, ow, &c) ? c : 0;
    const Expr *sub[3] = {e->a, e->b, e->c};
    for (int i = 0; i < 3; i++) {
        int64_t k = col_stride(sub[i], ow);
        best = k > best ? k : best;
    }
    return best;
}

/* Registers the epilogue (finalize) holds across a tile's reduction: gcc
 * hoists its invariants above the reduction loops and keeps them there -
 * each load indexed by the channel alone (bias, scale), one vector per
 * channel block of the tile. Its constants are not counted: where they
 * would crowd the tile, lower/lp_tile_consts.c broadcasts them after the
 * reduction instead. */
typedef struct EpiInv {
    const LBuf *l[24];
    int nl;
} EpiInv;

static void epi_invariants(const Expr *e, const ComputeStage *st, EpiInv *v)
{
    if (!e)
        return;
    if (e->kind == EX_LOAD) {
        if (lx_uses_var(e->a, st->axis[2]) || lx_uses_var(e->a, st->axis[3]))
            return;
        int k = 0;
        while (k < v->nl && v->l[k] != e->buf)
            k++;
        if (k == v->nl && v->nl < 24)
            v->l[v->nl++] = e->buf;
        return;
    }
    epi_invariants(e->a, st, v);
    epi_invariants(e->b, st, v);
    epi_invariants(e->c, st, v);
}

/* T and R for U channel blocks and at most tmax accumulators */
static void pick_tr(ConvPlan *p, int64_t tmax)
{
    if (2 * p->OW <= tmax) {
        /* narrow rows: a tile spans R whole rows */
        p->T = p->OW;
        p->R = sched_pick_tile(p->OH, (tmax / p->OW + 1) / 2, tmax / p->OW);
    } else {
        p->T = sched_pick_tile(p->OW, (tmax + 1) / 2, tmax);
        p->R = 1;
    }
    if (p->R > p->OH)
        p->R = p->OH;
}

/* Modelled cycles of one reduction step over the whole output: a tile of A
 * = U*T*R accumulators needs U + T*R vector loads (weights, broadcasts) and
 * A FMAs, two of each a cycle, and at least CONV_LAT accumulators to hide
 * the FMA latency (two pipes x 4-5 cycles on AVX2 cores). */
#define CONV_LAT 10
static int64_t plan_cost(const ConvPlan *p)
{
    int64_t us[2] = {p->U, p->OCb % p->U}, rs[2] = {p->R, p->OH % p->R}, ts[2] = {p->T, p->OW % p->T};
    int64_t un[2] = {p->OCb / p->U, 1}, rn[2] = {p->OH / p->R, 1}, tn[2] = {p->OW / p->T, 1}, c = 0;
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            for (int d = 0; d < 2; d++) {
                if (!us[a] || !rs[b] || !ts[d])
                    continue;
                int64_t acc = us[a] * rs[b] * ts[d], ld = us[a] + rs[b] * ts[d];
                int64_t cyc = acc > ld ? acc : ld;
                c += un[a] * rn[b] * tn[d] * (cyc > CONV_LAT ? cyc : CONV_LAT);
            }
    return c;
}

/* Small outputs tile one channel block over whole rows, which leaves few
 * accumulators when the rows are short and registers few (7x7 with 16
 * registers: T = 7, one broadcast per FMA, latency-bound). Try U = 2..4
 * channel blocks sharing each broadcast, with all registers but the U
 * weights and a broadcast as accumulators, and keep the cheapest plan by
 * plan_cost when it saves over 10% (ResNet/ResNeXt layer4 1x1 convs on
 * AVX2: T = 4, U = 3, 62 -> 80 GFLOP/s). */
static void widen_small(ConvPlan *p, int regs, int vl, const EpiInv *inv)
{
    ConvPlan best = *p;
    int64_t cost = plan_cost(p), best_cost = cost;
    for (int64_t U = 2; U <= 4 && U <= p->OCb; U++) {
        ConvPlan q = *p;
        q.U = U;
        /* all registers but the U weights, a broadcast and, for int32
           accumulators, the epilogue's hoisted loads and 3 for the
           compiler's temporaries. resnet18_qdq_u8's last 7x7 conv (a
           residual epilogue of 8 constants) had a weight vector kept on
           the stack at 2 x 7 accumulators while the constants were counted
           here as well, so it ran 1 x 7 (0.62 ms, Intel, gcc 12); with
           its constants broadcast after the reduction (lp_tile_consts) it
           runs 2 x 7 like its neighbours */
        int64_t t = (regs - U - 1 - (inv ? U * inv->nl + 3 : 0)) / U;
        if (t < 1)
            continue;
        pick_tr(&q, t);
        int64_t c = plan_cost(&q);
        if (q.T >= 1 && c < best_cost) {
            best = q;
            best_cost = c;
        }
    }
    /* 16 registers: only a clear saving; 32 of 16 lanes (AVX-512; not yet
       measured on NEON's 32 of 4): U >= 2 unless it
       models dearer - measured by ctvm-tune on Zen 4 (resnet50's 7x7
       layers: U = 2..4 12-24% faster than U = 1, which the model rates
       within 4%), the weights a broadcast serves matter more than the
       model's cycle count there */
    if (regs >= 32 && vl >= 16 ? best_cost <= cost : best_cost * 10 < cost * 9)
        *p = best;
}

/* Cache blocking of the reduction. A tile reduces over all input channel
 * blocks at once; when the input (read again by every output-channel tile)
 * plus a tile's weight slice overflow L2, every tile streams them from
 * further out. Then the input channel blocks go in chunks of Kc whose input
 * and weights fit CONV_L2_BUDGET, outside the parallel loop: every tile
 * sums one chunk into the output, and the last chunk applies finalize.
 * float32 sums into a float32 output only, with unit lane stride. */
static void plan_chunks(const ComputeStage *st, ConvPlan *p)
{
    p->nK = 1;
    int nr = st->n_raxes;
    int64_t coef = 0;
    if (st->red != RED_SUM || nr != 4 || st->body->type != LT_F32 || st->out->dtype != DT_FLOAT32 ||
        !lx_affine(st->out_index, st->axis[4], &coef) || coef != 1)
        return;
    p->kax = st->rextent[nr - 1] == 1 ? nr - 2 : 0; /* (kh, kw, icb, il) when IB = 1 */
    int64_t icbg = st->rextent[p->kax], per_blk = 1; /* reduction steps per input block */
    for (int r = 0; r < nr; r++)
        per_blk *= r == p->kax ? 1 : st->rextent[r];
    LBuf *bufs[4];
    int n = 0;
    find_loads(st->body, bufs, &n);
    int64_t wnum = st->extent[1] * st->extent[4] * icbg * per_blk;
    LBuf *x = n == 2 ? (bufs[1]->numel == wnum ? bufs[0] : bufs[0]->numel == wnum ? bufs[1] : NULL) : NULL;
    if (!x || st->extent[0] < 1)
        return;
    /* per input block: its input planes (over-counted by the group count
     * for grouped convs) and a tile's weights */
    int64_t unit = 4 * (x->numel / st->extent[0] / icbg + per_blk * p->U * p->L);
    if (st->knob[3] > 0)
        p->Kc = st->knob[3];
    else {
        if (icbg * unit <= CONV_L2_BUDGET)
            return;
        p->Kc = 0;
        for (int64_t k = icbg - 1; k >= 1; k--)
            if (icbg % k == 0 && k * unit <= CONV_L2_BUDGET) {
                p->Kc = k;
                break;
            }
        if (p->Kc * per_blk < 32) /* too little work per chunk to pay for its loads and stores */
            return;
    }
    if (p->Kc < 1 || p->Kc >= icbg || icbg % p->Kc != 0)
        return;
    p->nK = icbg / p->Kc;
}

/* Loop order of the tiles. Channel tiles outermost stream the whole input
 * once per tile of U output blocks; when one image's input overflows L2 but
 * all the weights fit, rows outermost instead read each input row once (it
 * stays in cache while every channel tile uses it) and keep the weights in
 * L2 (resnext50_32x4d's 56x56 1x1 convs, AVX2: 2.7 -> 2.2 ms each). Such
 * convs take no reduction chunks (plan_chunks) unless knob[3] asks: the
 * row order already keeps the reduction's working set in cache, and chunks
 * would add output round trips (the 7x7 stem over 3 channels: 4.7 -> 2.8 ms).
 * streamed: also weights over L2, see below. */
static int rows_outer(const ComputeStage *st, const ConvPlan *p, int streamed)
{
    if (st->n_raxes != 4 || st->body->type != LT_F32 || st->extent[0] < 1)
        return 0;
    int64_t wnum = st->extent[1] * st->extent[4];
    for (int r = 0; r < st->n_raxes; r++)
        wnum *= st->rextent[r];
    LBuf *bufs[4];
    int n = 0;
    find_loads(st->body, bufs, &n);
    LBuf *x = n == 2 ? (bufs[1]->numel == wnum ? bufs[0] : bufs[0]->numel == wnum ? bufs[1] : NULL) : NULL;
    int64_t xnum = x ? x->numel / st->extent[0] : 0;
    if (4 * xnum <= CONV_L2_BUDGET)
        return 0;
    if (4 * wnum <= CONV_L2_BUDGET)
        return 1;
    /* weights over L2 too: after plan_chunks found no chunks (p->nK == 1),
     * when the weights streamed once per row tile are under a third of the
     * input streamed once per channel tile (resnext50/resnet50's 1x1
     * stride-2 256->512 downsample at 56x56: 3.2 -> 2.4 ms). Not grouped
     * convs, whose channel tiles read their group's input only (ResNeXt's
     * 14x14 ones lost 0.2-0.4 ms in all that way). */
    if (!streamed || p->nK != 1 || !shares_input(st->body, st))
        return 0;
    int64_t ct = (p->OCb + p->U - 1) / p->U, rt = (p->OH + p->R - 1) / p->R;
    return 3 * wnum * rt <= xnum * ct;
}

/* the tiles of R output rows: full tiles of T columns, then the rest */
static Stmt *rows(ComputeCtx *cx, const ComputeStage *st, Expr **at, const ConvPlan *p, int64_t U, int64_t R)
{
    LoopBuilder *lb = cx->lb;
    Stmt *items[2] = {NULL, NULL};
    int64_t full = p->OW / p->T, rest = p->OW - full * p->T;
    at[4] = lx_int(lb, 0);
    if (full > 0) {
        LVar *to = lv_new(lb, "owo");
        at[3] = lx_muli(lb, lx_var(lb, to), p->T);
        Tile t = {.tax = 3, .uax = 1, .vax = 4, .T = p->T, .U = U, .L = p->L, .rax = 2, .R = R,
                  .kax = p->kax, .Kc = p->Kc, .nK = p->nK, .kvar = p->kvar, .unroll_r = p->unroll_r};
        items[0] = full == 1 ? ls_subst(lb, sched_tile(cx, st, at, &t), to, lx_int(lb, 0))
                             : ls_for(lb, to, full, LOOP_SERIAL, sched_tile(cx, st, at, &t));
    }
    if (rest > 0) {
        at[3] = lx_int(lb, full * p->T);
        Tile t = {.tax = 3, .uax = 1, .vax = 4, .T = rest, .U = U, .L = p->L, .rax = 2, .R = R,
                  .kax = p->kax, .Kc = p->Kc, .nK = p->nK, .kvar = p->kvar, .unroll_r = p->unroll_r};
        items[1] = sched_tile(cx, st, at, &t);
    }
    return ls_seq(lb, 2, items);
}

static Stmt *inner(ComputeCtx *cx, const ComputeStage *st, Expr **at, void *user)
{
    const ConvPlan *p = user;
    LoopBuilder *lb = cx->lb;
    /* at[1], at[2] hold tile indices; the tiles start at index * U, * R */
    Expr *ut = at[1], *rt = at[2];
    at[1] = lx_muli(lb, ut, p->U);
    at[2] = lx_muli(lb, rt, p->R);
    int64_t Us[2] = {p->U, p->OCb % p->U}, Rs[2] = {p->R, p->OH % p->R};
    Stmt *c[2][2] = {{0}};
    for (int a = 0; a < 2; a++)
        for (int b = 0; b < 2; b++)
            if (Us[a] > 0 && Rs[b] > 0)
                c[a][b] = rows(cx, st, at, p, Us[a], Rs[b]);
    Stmt *byu[2];
    for (int a = 0; a < 2; a++)
        byu[a] = c[a][1] ? sched_split_case(lb, rt, p->OH / p->R, c[a][0], c[a][1]) : c[a][0];
    return byu[1] ? sched_split_case(lb, ut, p->OCb / p->U, byu[0], byu[1]) : byu[0];
}

#ifndef QCONV_TMAX
#define QCONV_TMAX 12
#endif
Stmt *schedule_conv(ComputeCtx *cx, const ComputeStage *st)
{
    int vl = sched_vl(cx);
    int regs = cx->target ? cx->target->n_vregs : 16;
    if (st->n_axes != 5 || (vl > 1 && st->extent[4] != vl))
        return schedule_stage_default(cx, st);
    ConvPlan p = {.L = st->extent[4], .OCb = st->extent[1], .OH = st->extent[2], .OW = st->extent[3]};
    int depthwise = st->n_raxes == 2;
    if (vl == 1)
        p.U = depthwise || (st->acc && st->acc->type == LT_I32) ? 1 : (p.OCb >= 4 ? 4 : p.OCb); /* scalar: channels are the register block */
    else
        p.U = depthwise || st->extent[2] * st->extent[3] <= 64 ? 1 : (p.OCb >= 2 ? 2 : 1);
    if (st->knob[1] > 0)
        p.U = st->knob[1] < p.OCb ? st->knob[1] : p.OCb;
    /* accumulators: all registers but the U weight vectors and a broadcast */
    int64_t tmax = (regs - p.U - 2) / p.U;
    if (tmax > 28)
        tmax = 28;
    /* int32 dot-product accumulators (ctvm.QConvNCHWc): at 2 x 14 gcc 12
       spilled and reloaded every accumulator each step (it broadcasts the
       input's 4 bytes into a register of their own, leaving one too few);
       2 x 8, 2 x 10 and 2 x 12 measured alike on Zen 4 */
    if (st->acc && st->acc->type == LT_I32 && tmax > QCONV_TMAX)
        tmax = QCONV_TMAX;
    /* scalar targets: the int32 accumulators are general-purpose registers
       (13 on a Cortex-M), not the n_vregs FP ones, and a dot takes four more
       for its halfword pairs: one column of U channels, which keeps every
       accumulator in a register and the code small (flash on a microcontroller) */
    if (vl == 1 && st->acc && st->acc->type == LT_I32)
        tmax = 1;
    /* strided depthwise with 16 lanes: at most 8 accumulators. ctvm-tune
       on Zen 4: mobilenet_v2's stride-2 depthwise layers fastest with 6-12
       (56x56 from 112: T = 28 0.33 ms, T = 8 0.11, T = 2 x R = 4 0.09);
       its stride-1 ones keep wide tiles (56x56: T = 28 0.12 ms, T = 8 0.16),
       whose neighbouring columns share input vectors */
    if (depthwise && vl >= 16 && tmax > 8 && col_stride(st->body, st->axis[3]) > vl)
        tmax = 8;
    if (tmax < 1)
        tmax = 1;
    /* integer depthwise (int32 multiply-adds in channel lanes, one widening
       load per tap): kw unrolled, so neighbouring columns' taps share their
       input vectors (each loaded and widened once instead of once per tap;
       mobilenet_v2_qdq_u8's depthwise layers 0.88 -> 0.76 ms in all, Zen 4) */
    p.unroll_r = depthwise && vl > 1 && st->acc && st->acc->type == LT_I32 && st->rextent[1] <= 7;
    if (st->knob[0] > 0) {
        p.T = st->knob[0] < p.OW ? st->knob[0] : p.OW;
        p.R = st->knob[2] > 0 ? st->knob[2] : 1;
        if (p.R > p.OH)
            p.R = p.OH;
    } else {
        pick_tr(&p, tmax);
        if (vl > 1 && p.U == 1 && !depthwise && st->knob[1] <= 0 && shares_input(st->body, st)) {
            int int32 = st->acc && st->acc->type == LT_I32; /* only int32 tiles budget for the epilogue */
            EpiInv inv = {.nl = 0};
            if (int32)
                epi_invariants(st->finalize, st, &inv);
            widen_small(&p, regs, vl, int32 ? &inv : NULL);
        }
    }
    int axes[3] = {0, 1, 2};
    int64_t ext[3] = {st->extent[0], (p.OCb + p.U - 1) / p.U, (p.OH + p.R - 1) / p.R};
    p.nK = 1;
    int ro = rows_outer(st, &p, 0); /* weights within L2: not chunked */
    if (!ro || st->knob[3] > 0)
        plan_chunks(st, &p);
    if (!ro && p.nK == 1)
        ro = rows_outer(st, &p, 1); /* weights over L2, no chunks */
    if (ro && p.nK == 1) { /* (n, row tiles, channel tiles) */
        int64_t t = ext[1];
        axes[1] = 2, axes[2] = 1, ext[1] = ext[2], ext[2] = t;
    }
    if (p.nK > 1)
        p.kvar = lv_new(cx->lb, "kc");
    Expr *at[CTVM_MAX_RANK] = {0};
    Stmt *s = sched_fused_outer(cx, st, axes, ext, 3, 1, at, inner, &p);
    return p.nK > 1 ? ls_for(cx->lb, p.kvar, p.nK, LOOP_SERIAL, s) : s;
}
