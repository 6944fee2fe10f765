/* pass_list.c - the passes in the order they run, and the driver. */
#include <string.h>

#include "passes.h"

const PassInfo CTVM_PASSES[] = {
    {"quant_canon", pass_quant_canon, NULL},     /* QDQ / QLinear -> integer core + float epilogue (before folding) */
    {"quant_moves", pass_quant_moves, NULL},     /* data movement between DQ and Q on the integers */
    {"infer_fold", NULL, pass_infer_fold},       /* shapes, constant folding */
    {"promote_half", pass_promote_half, NULL},   /* float16/bfloat16 arithmetic in float32 */
    {"drop_identity", pass_drop_identity, NULL}, /* Identity, Dropout */
    {"fold_batchnorm", pass_fold_batchnorm, NULL},
    {"match_layernorm", pass_match_layernorm, NULL}, /* LayerNorm written out -> LayerNormalization */
    {"match_gelu", pass_match_gelu, NULL},       /* GELU written out -> Gelu */
    {"match_swish", pass_match_swish, NULL},     /* x * Sigmoid(x) -> Swish */
    {"fold_pad", pass_fold_pad, NULL},           /* zero Pad into the Conv's pads */
    {"crop_conv_taps", pass_crop_conv_taps, NULL}, /* kernel taps that read only padding */
    {"split_conv_regions", pass_split_conv_regions, NULL}, /* dilated Conv: per output region, its real taps */
    {"lower_resize", pass_lower_resize, NULL},   /* small linear/cubic Resize as MatMuls */
    {"lower_conv", pass_lower_conv, NULL},       /* 1-D/3-D Conv as 2-D, ConvTranspose as MatMul + Col2Im */
    {"sink_reshape", pass_sink_reshape, NULL},   /* elementwise after a Reshape moves before it (fusion) */
    {"pack_matmul", NULL, pass_pack_matmul},     /* constant B of large float32 products as column panels */
    {"lower_attention", pass_lower_attention, NULL}, /* float32 Attention as MatMul, Softmax, MatMul */
    {"einsum_operands", pass_einsum_operands, NULL}, /* the operand holding the output's last letter made contiguous */
    {"match_sdpa", pass_match_sdpa, NULL},       /* long attention as one blocked kernel */
    {"quant_u8_acts", pass_quant_u8_acts, NULL}, /* int8 activations as uint8 (+128) for the u8 x s8 dot product */
    {"quant_lut", pass_quant_lut, NULL},         /* DQ -> elementwise float ops -> Q of one byte: a table */
    {"qmatmul_runtime", pass_qmatmul_runtime, NULL}, /* MatMulInteger with a run-time B on the dot product */
    {"sink_reshape2", pass_sink_reshape, NULL},  /* again, for the Reshapes the lowering passes made */
    {"cse", pass_cse, NULL},                     /* the same node on the same inputs once */
    {"infer_fold2", NULL, pass_infer_fold},      /* fold what BN folding made constant */
    {"dce", pass_dce, NULL},
    {"outputs", pass_outputs, NULL},             /* every output written by a kernel */
    {"hidden", NULL, pass_hidden},               /* dims of data-dependent outputs, kernel scratch */
    {"layout", NULL, pass_layout},               /* blocked convolutions, layout propagation */
    {"winograd", NULL, pass_winograd},           /* 3x3 stride-1 blocked convs as Winograd F(2x2,3x3) */
    {"views", pass_views, NULL},
    {"fuse", pass_fuse, NULL},
    {"plan_memory", pass_plan_memory, NULL},
};
const int CTVM_N_PASSES = (int)(sizeof CTVM_PASSES / sizeof CTVM_PASSES[0]);

int pass_run(const PassInfo *p, Graph *g, const CodegenOptions *cg, Diag *d)
{
    return p->run_for ? p->run_for(g, cg, d) : p->run(g, d);
}

int passes_run(Graph *g, const CodegenOptions *cg, Diag *d, const char *dump_after, FILE *dump)
{
    for (int i = 0; i < CTVM_N_PASSES; i++) {
        if (pass_run(&CTVM_PASSES[i], g, cg, d) != 0)
            return -1;
        graph_count_uses(g);
        if (dump_after && dump &&
            (strcmp(dump_after, "all") == 0 || strcmp(dump_after, CTVM_PASSES[i].name) == 0)) {
            fprintf(dump, "# after %s\n", CTVM_PASSES[i].name);
            graph_dump(g, dump);
        }
    }
    return 0;
}
