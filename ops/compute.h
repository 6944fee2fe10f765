/* compute.h - compute definitions: what each operator computes, as data.
 *
 * Like TVM's tensor expressions, a compute definition says what value every
 * output element takes, not in which order loops run: a ComputeStage has
 * spatial axes (one per output dimension it writes), optional reduction axes
 * with a reducer, a body expression over those axes, and a finalize
 * expression of the reduced value (the placeholder `acc`). The scheduler
 * (schedule.h) turns stages into loop nests. Fused epilogues (bias, Relu,
 * Clip, residual Add, ...) are composed into the last stage's finalize.
 *
 * Every operator family defines
 *   int compute_<family>(ComputeCtx *cx, int node, ComputeDef *def);
 * reading the typed attributes its infer function filled (Node.at,
 * ir/op_attrs.h), never an attribute by name. The
 * definition serves twice: schedule/ turns it into the generated kernel,
 * and constant folding runs it in the loop IR interpreter
 * (ops_eval_compute in compute_eval.c), so the semantics are written once.
 * Definitions never depend on the target (vector width, registers, threads):
 * that is the schedule's business. Stages are lowered by schedule/schedule.c
 * (or the template a stage's `sched` names); a custom nest is built of
 * serial loops whose target-free properties the definition states with
 * ls_role (ir/loop.h LoopRole: independent iterations and their work, a
 * contiguous float32 axis, register tiles, packed panels), and
 * schedule/schedule_custom.c picks vector, unrolled and parallel loops from
 * them. tests/unit/test_schedule_custom.c checks that no file here reads
 * the target or the thread count (two exceptions listed there: the RNN's
 * recurrent register tile and ctvm.Sdpa's per-thread scratch). */
#ifndef CTVM_OPS_COMPUTE_H
#define CTVM_OPS_COMPUTE_H

#include "ir/diag.h"
#include "ir/graph.h"
#include "ir/loop.h"

#define CTVM_MAX_STAGES 64

typedef enum Reducer { RED_NONE, RED_SUM, RED_MAX, RED_MIN, RED_PROD } Reducer;

typedef struct ComputeCtx ComputeCtx;

/* Which schedule lowers a stage (schedule/): the default one, or a
 * template of an op family with its own knobs. */
typedef enum SchedKind { SCHED_DEFAULT = 0, SCHED_CONV, SCHED_GEMM } SchedKind;

typedef struct ComputeStage {
    const char *name;
    LBuf *out;
    int n_axes;
    LVar *axis[CTVM_MAX_RANK];
    int64_t extent[CTVM_MAX_RANK];
    Expr *out_index;   /* flat element index into out, over the axes */
    int n_raxes;
    LVar *raxis[CTVM_MAX_RANK];
    int64_t rextent[CTVM_MAX_RANK];
    Reducer red;
    Expr *body;        /* value at (axes, raxes) */
    LVar *acc;         /* placeholder for the reduced value (or body) in finalize */
    Expr *finalize;    /* stored value as a function of acc and axes */
    int out_is_node_output; /* axes are exactly the node output's dims, in order */
    /* default schedule: the axis right outside the vectorized last one is
     * unrolled (a small axis whose index picks constants, e.g. the 16
     * Winograd transform positions of ops/winograd.c) */
    int unroll_inner;
    /* default schedule: the last axis, when it is not vectorized (fewer
     * elements than a vector), is unrolled (a Pack into blocks of 4: the
     * copies of one pixel's channels side by side, no loop of 4) */
    int unroll_last;
    /* A schedule of its own (schedule/schedule_<kind>.c) instead of the
     * default; it reads body/finalize (epilogues already composed) and the
     * knobs below. */
    SchedKind sched;
    int sched_vector_only; /* that schedule only on vector targets, else the default */
    int knob[4];       /* per-schedule knobs (tile sizes), 0 = schedule's default */
} ComputeStage;

typedef struct ComputeDef {
    int n_stages;
    ComputeStage stages[CTVM_MAX_STAGES];
    Stmt *custom;      /* a hand-built loop nest (e.g. softmax); runs after the stages if both */
} ComputeDef;

struct ComputeCtx {
    LoopBuilder *lb;
    Graph *g;
    Diag *d;
    /* The buffer holding a value's elements (views resolve to their root). */
    LBuf *(*buf_of)(ComputeCtx *cx, int value_id);
    void *user;
    /* for schedule/: knobs per workload (schedule/schedule_key.h) or NULL;
     * naive = 1 lowers every stage as a plain loop nest (the reference
     * kernel a tuning candidate is checked against) */
    struct SchedTuning *tuning;
    int naive;
    /* The code-generation target (NULL: generic C) and the
     * team's size (>= 1), from the CodegenOptions: schedule/ chooses by
     * them. Compute definitions stay target-free, with one exception
     * tests/unit/test_schedule_custom.c names: the slots of a per-thread
     * scratch (ctvm.Sdpa), one per thread. */
    const struct Target *target;
    int threads;
    /* The register tile of a matrix product a custom body builds itself
     * (rnn.c's recurrent product: `rows` rows of a by `cols` columns of w
     * stored in panels of `lanes` columns): *mr rows by *nr vectors of
     * `lanes` (single columns when lanes is 1). Chosen by schedule/
     * (sched_reg_tile, from the target's registers); NULL when folding,
     * where the tile does not change a sum, only which sums live in
     * registers. */
    void (*reg_tile)(const ComputeCtx *cx, int64_t rows, int64_t cols, int64_t lanes, int64_t *mr, int64_t *nr);
};

#define X(e, name, fam, lo, hi, fl) int compute_##fam(ComputeCtx *cx, int node, ComputeDef *def);
CTVM_OPS(X)
#undef X

/* Dispatch by op kind through the X-macro table. */
int compute_node(ComputeCtx *cx, int node, ComputeDef *def);

/* A stage as a plain loop nest: spatial loops in order, a local
 * accumulator around the reduction loops (compute_eval.c; the schedules of
 * schedule/ make the fast ones). */
Stmt *compute_lower_naive(LoopBuilder *lb, const ComputeStage *st);

/* --- helpers shared by the compute files (compute_util.c) --- */

/* A new stage writing `out` over the dims of `shape`, row-major; axes named
 * from `hints` ("n","c","h","w"...) when given. */
ComputeStage *compute_stage_new(ComputeCtx *cx, ComputeDef *def, const char *name, LBuf *out,
                                const Shape *shape);
/* The one stage of `node` that sums into its output (a dot-product GEMM or
 * convolution): red RED_SUM, schedule `sched`, an accumulator of type `acc`;
 * NULL after a diagnostic when the definition is full. */
ComputeStage *compute_sum_stage(ComputeCtx *cx, ComputeDef *def, int node, LType acc, SchedKind sched);
/* Adds a reduction axis; returns its variable. */
LVar *compute_add_raxis(ComputeCtx *cx, ComputeStage *st, const char *hint, int64_t extent);
/* Reduction axis over kernel axis i of ns spatial axes (Conv, pools),
 * named kh, kw, kd, ... ("kw" when 1-D). */
LVar *compute_kernel_raxis(ComputeCtx *cx, ComputeStage *st, int ns, int i, int64_t extent);
/* Row-major flat index of `idx` (rank entries) into `shape`. */
Expr *compute_flat_index(ComputeCtx *cx, const Shape *shape, Expr *const *idx);
/* Load of value `vid` broadcast (numpy rules) against the output `shape`
 * indexed by `axes`; a constant of one element becomes an immediate. */
Expr *compute_load_broadcast(ComputeCtx *cx, int vid, const Shape *shape, LVar *const *axes);
/* The same with the value's dims aligned to the output's starting at `first`
 * (numpy aligns them to the right: first = rank(shape) - rank(value)). */
Expr *compute_load_aligned(ComputeCtx *cx, int vid, const Shape *shape, LVar *const *axes, int first);
/* e, a float32 compute value, rounded to the precision of storage type dt
 * (float16/bfloat16; other types unchanged): per-step rounding as the
 * ONNX reference computes in those types. */
Expr *compute_round_to(LoopBuilder *lb, DType dt, Expr *e);
/* A one-element constant as an immediate of its compute type, else NULL. */
Expr *compute_const_scalar(ComputeCtx *cx, int vid);
/* The elementwise function of an elementwise node applied to operand
 * expressions (one per node input; NULL for an omitted input); ops/eltwise.c. */
Expr *compute_eltwise_expr(ComputeCtx *cx, int node, Expr *const *operands);
/* Per-tensor QuantizeLinear `node` (float32 arithmetic) of the float32 value
 * x at `axes` of shape xs: an epilogue of a fused group (pass fuse). */
Expr *compute_quantize_expr(ComputeCtx *cx, int node, Expr *x, const Shape *xs, LVar *const *axes);
/* DequantizeLinear `node` (constant float32 parameters) of the value x (its
 * input's type) over the axes of shape xs: (x - zero point) * scale */
Expr *compute_dequantize_expr(ComputeCtx *cx, int node, Expr *x, const Shape *xs, LVar *const *axes);
/* ctvm.PadHW `node`: its border value (zero, or its second input's one
 * element), and, fused into its producer's group (pass fuse), the index in
 * its padded output of the input point at `axes`. */
Expr *compute_pad_value(ComputeCtx *cx, int node);
Expr *compute_pad_index(ComputeCtx *cx, int node, LVar *const *axes);
/* cond && c in [0, size), where c is an input coordinate reaching down to
 * -pad and up to max_c: only the sides that can be crossed are tested. */
Expr *compute_bound(ComputeCtx *cx, Expr *cond, Expr *c, int64_t pad, int64_t max_c, int64_t size);
/* The input row *ih and column *iw that output (axis 2, axis 3 of s) reads
 * at taps kh, kw of the 2-D window wa over the blocked input xs (output ys),
 * and the condition that the tap lies inside the input (compute_bound: only
 * the sides padding reaches are tested). */
Expr *compute_window_tap(ComputeCtx *cx, const ComputeStage *s, const WindowAttrs *wa, LVar *kh, LVar *kw,
                         const Shape *xs, const Shape *ys, Expr **ih, Expr **iw);
/* The stage of a numpy matmul of values a_vid and b_vid into the node's
 * output (batch broadcasting, 1-D operands), RED_SUM over k; *a_load and
 * *b_load receive the operand loads, the caller sets body and finalize
 * (compute_gemm.c; also used by the integer matmuls). NULL on error. */
/* Sends sum-of-products stage s of node `node` (rows M, vectorized columns
 * N, reduction K) through the register-tiled GEMM schedule
 * (schedule/schedule_gemm.c) when its first two inputs and output are
 * float32 and the product is large enough; small ones keep the default
 * schedule, whose one-vector loop is as good and its code smaller. */
void compute_pick_gemm_sched(ComputeCtx *cx, int node, ComputeStage *s, int64_t M, int64_t N, int64_t K);
ComputeStage *compute_matmul_stage(ComputeCtx *cx, int node, ComputeDef *def, int a_vid, int b_vid,
                                   Expr **a_load, Expr **b_load);
/* The stage of the convolution of x_vid by w_vid into the node's output
 * (window and group ca, filled by infer), RED_SUM over (channel in group, kernel);
 * *x_load is the input load, valid where *in_bounds holds (zero padding is
 * the caller's select), *w_load the weight load (compute_conv.c; also used
 * by the integer convolutions). NULL on error. */
ComputeStage *compute_conv_stage(ComputeCtx *cx, int node, ComputeDef *def, const ConvAttrs *ca, int x_vid,
                                 int w_vid, Expr **x_load, Expr **in_bounds, Expr **w_load);
/* Error about a node: always returns -1. */
int compute_fail(ComputeCtx *cx, int node, const char *reason);

#endif
