/* ops.h - what ctvm knows of each operator: shape rule and reference evaluation.
 *
 * One file per family (ops/<family>.c, families named in ir/op_table.h)
 * defines two functions:
 *
 *   int op_<family>_infer(Graph *g, int node, Diag *d);
 *       Checks the inputs (count, dtypes, ranks), normalises the attributes
 *       (see the contract below) and sets dtype and static shape of every
 *       output. Input shapes are static when it is called. 0 ok, -1 error
 *       (reported through d, naming the node and the reason).
 *
 *   int op_<family>_eval(Graph *g, int node, Diag *d);
 *       Called after infer when every input is a constant: computes the
 *       outputs' bytes (Value.data, allocated from g->arena). 1 folded,
 *       0 cannot fold this case (not an error), -1 error, or
 *       OPS_EVAL_BY_COMPUTE: evaluate by running the node's compute
 *       definition (ops_eval does it, rounding as the target does). These are also the
 *       reference kernels that unit tests compare generated code with;
 *       Gemm/MatMul/Conv use OpenBLAS.
 *
 * Attribute contract after infer (compute definitions in schedule/ rely on it):
 *   Conv        n spatial axes: kernel_shape[n], strides[n], dilations[n], pads[2n]
 *               (begins, then ends) with auto_pad resolved, group.
 *   MaxPool/AveragePool/LpPool  kernel_shape[n], strides[n], dilations[n],
 *               pads[2n] (auto_pad resolved; ceil_mode already reflected in the
 *               output shape), count_include_pad (AveragePool).
 *   Gemm        alpha, beta, transA, transB explicit.
 *   Softmax     axis >= 0; "coerce2d" = 1 for opset < 13 semantics.
 *   Concat, Gather, Split, Flatten  axis >= 0; Split: "split" ints filled in.
 *   Slice       "starts","ends","steps" ints of length rank, clamped, for
 *               every dimension (starts/ends/axes/steps inputs must be constant).
 *   Transpose   perm explicit.
 *   Clip        "min","max" floats (from inputs for opset >= 11; -FLT_MAX/FLT_MAX
 *               when absent).
 *   Reduce*     "axes" ints >= 0, sorted (from attribute or input), keepdims.
 *   LeakyRelu alpha; HardSigmoid alpha, beta; BatchNormalization epsilon.
 */
#ifndef CTVM_OPS_OPS_H
#define CTVM_OPS_OPS_H

#include "ir/diag.h"
#include "ir/graph.h"

#define X(e, name, fam, lo, hi, fl)                                 \
    int op_##fam##_infer(Graph *g, int node, Diag *d);  \
    int op_##fam##_eval(Graph *g, int node, Diag *d);
CTVM_OPS(X)
#undef X

/* What op_<family>_eval returns to be evaluated by running its compute
 * definition in the loop IR interpreter (the families with no faster
 * hand-written evaluation). */
#define OPS_EVAL_BY_COMPUTE 2
/* The whole op_<family>_eval of such a family. */
#define DEFINE_EVAL_BY_COMPUTE(fam)                              \
    int op_##fam##_eval(Graph *g, int node, Diag *d)           \
    {                                                          \
        (void)g, (void)node, (void)d;                          \
        return OPS_EVAL_BY_COMPUTE;                            \
    }

struct Target;

/* Evaluation by running the node's compute definition in the loop IR
 * interpreter (compute_eval.c), computing as target t does (whether its
 * multiply-add fuses; NULL: generic C). 1 folded, -1 error. */
int ops_eval_compute(Graph *g, int node, const struct Target *t, Diag *d);

/* Dispatch on g->nodes[node].op; an unknown op is an error naming it.
 * ops_eval folds for target t: the constants it computes are the bytes the
 * generated code would compute on t. */
int ops_infer(Graph *g, int node, Diag *d);
int ops_eval(Graph *g, int node, const struct Target *t, Diag *d);

#endif
