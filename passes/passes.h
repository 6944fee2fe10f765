/* passes.h - graph-to-graph passes, run in the order of passes/pass_list.c.
 *
 * Each pass is `int pass_x(Graph *, Diag *)`: 0 on success, -1 after
 * reporting an error. The few that choose for the code-generation target
 * (a layout blocked by the vector width, scratch per thread, constants
 * folded as the target rounds) take the CodegenOptions too:
 * `int pass_x(Graph *, const CodegenOptions *, Diag *)`; the graph itself
 * holds no target. `ctvm-emit --dump-after=NAME` prints the graph in the
 * stable text form of graph_dump() after the named pass. */
#ifndef CTVM_PASSES_PASSES_H
#define CTVM_PASSES_PASSES_H

#include <stdio.h>

#include "ir/codegen.h"
#include "ir/diag.h"
#include "ir/graph.h"

int pass_quant_canon(Graph *g, Diag *d);    /* QDQ Conv/MatMul/Gemm, QLinearConv/MatMul -> ConvInteger/MatMulInteger + float epilogue */
int pass_quant_moves(Graph *g, Diag *d);    /* data movement between DQ and Q of equal parameters on the integers */
int pass_infer_fold(Graph *g, const CodegenOptions *cg, Diag *d); /* shapes + constant folding, topological */
int pass_promote_half(Graph *g, Diag *d);    /* float16/bfloat16 arithmetic computed in float32 */
int pass_drop_identity(Graph *g, Diag *d);   /* Identity, inference-mode Dropout */
int pass_fold_batchnorm(Graph *g, Diag *d);  /* BatchNormalization into Conv/Gemm, or to Mul+Add */
int pass_lower_conv(Graph *g, Diag *d);     /* 1-D/3-D Conv as 2-D, ConvTranspose as MatMul + Col2Im */
int pass_pack_matmul(Graph *g, const CodegenOptions *cg, Diag *d); /* constant B of float32 MatMul/Gemm as column panels */
int pass_match_layernorm(Graph *g, Diag *d); /* LayerNorm written out as operators -> LayerNormalization */
int pass_match_gelu(Graph *g, Diag *d);      /* GELU (erf or tanh form) written out -> Gelu */
int pass_match_swish(Graph *g, Diag *d);     /* x * Sigmoid(x) -> Swish */
int pass_cse(Graph *g, Diag *d);             /* common subexpressions: pure nodes on equal inputs */
int pass_sink_reshape(Graph *g, Diag *d);    /* elementwise op before the Reshape it reads */
int pass_fold_pad(Graph *g, Diag *d);        /* zero Pad of spatial axes into the Conv after it */
int pass_crop_conv_taps(Graph *g, Diag *d);  /* Conv taps that read only padding dropped */
int pass_split_conv_regions(Graph *g, Diag *d); /* dilated Conv reading mostly padding -> per-region Convs */
int pass_lower_resize(Graph *g, Diag *d);    /* small linear/cubic Resize as interpolation-matrix products */
int pass_lower_attention(Graph *g, Diag *d); /* float32 Attention as MatMul, Softmax, MatMul */
int pass_match_sdpa(Graph *g, Diag *d);      /* MatMul, scale, mask, Softmax, MatMul -> ctvm.Sdpa */
int pass_einsum_operands(Graph *g, Diag *d); /* Einsum operand transposed for contiguous columns */
int pass_qmatmul_runtime(Graph *g, Diag *d); /* MatMulInteger with a run-time B -> ctvm.QMatMul (B packed at run time) */
int pass_dce(Graph *g, Diag *d);             /* drop nodes and values no output needs */
int pass_outputs(Graph *g, Diag *d);         /* constant, input and repeated outputs get a copy */
int pass_hidden(Graph *g, const CodegenOptions *cg, Diag *d); /* dims of data-dependent outputs, kernel scratch */
int pass_winograd(Graph *g, const CodegenOptions *cg, Diag *d); /* 3x3 ConvNCHWc -> WinogradConv (after layout) */
int pass_quant_u8_acts(Graph *g, Diag *d);  /* int8 activations -> uint8 with zero points + 128 (before layout) */
int pass_quant_lut(Graph *g, Diag *d);      /* elementwise chains between 8-bit tensors -> 256-entry tables */
int pass_layout(Graph *g, const CodegenOptions *cg, Diag *d); /* Conv -> blocked ConvNCHWc; blocked layout propagation */
int pass_views(Graph *g, Diag *d);           /* Reshape/Flatten/Squeeze/Unsqueeze as zero-copy */
int pass_fuse(Graph *g, Diag *d);            /* elementwise epilogues into their producer */
int pass_plan_memory(Graph *g, Diag *d);     /* liveness -> arena offsets */

typedef struct PassInfo {
    const char *name; /* as in --dump-after */
    int (*run)(Graph *, Diag *); /* one of the two */
    int (*run_for)(Graph *, const CodegenOptions *, Diag *);
} PassInfo;

extern const PassInfo CTVM_PASSES[];
extern const int CTVM_N_PASSES;

/* Runs one pass, either kind. */
int pass_run(const PassInfo *p, Graph *g, const CodegenOptions *cg, Diag *d);

/* Run every pass in order for the code-generation options cg; dump the
 * graph to `dump` after pass `dump_after` (NULL: never; "all": after each). */
int passes_run(Graph *g, const CodegenOptions *cg, Diag *d, const char *dump_after, FILE *dump);

/* Stable text form: one line per live node, one per input/output. */
void graph_dump(const Graph *g, FILE *f);

#endif
