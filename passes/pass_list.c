/* pass_list.c - the passes in the order they run, and the driver. */
#include <string.h>

#include "passes.h"

const PassInfo CTVM_PASSES[] = {
    {"infer_fold", pass_infer_fold},       /* shapes, constant folding */
    {"drop_identity", pass_drop_identity}, /* Identity, Dropout */
    {"fold_batchnorm", pass_fold_batchnorm},
    {"match_layernorm", pass_match_layernorm}, /* LayerNorm written out -> LayerNormalization */
    {"match_gelu", pass_match_gelu},       /* GELU written out -> Gelu */
    {"match_swish", pass_match_swish},     /* x * Sigmoid(x) -> Swish */
    {"fold_pad", pass_fold_pad},           /* zero Pad into the Conv's pads */
    {"crop_conv_taps", pass_crop_conv_taps}, /* kernel taps that read only padding */
    {"split_conv_regions", pass_split_conv_regions}, /* dilated Conv: per output region, its real taps */
    {"lower_resize", pass_lower_resize},   /* small linear/cubic Resize as MatMuls */
    {"lower_conv", pass_lower_conv},       /* 1-D/3-D Conv as 2-D, ConvTranspose as MatMul + Col2Im */
    {"pack_matmul", pass_pack_matmul},     /* constant B of large float32 products as column panels */
    {"lower_attention", pass_lower_attention}, /* float32 Attention as MatMul, Softmax, MatMul */
    {"einsum_operands", pass_einsum_operands}, /* the operand holding the output's last letter made contiguous */
    {"match_sdpa", pass_match_sdpa},       /* long attention as one blocked kernel */
    {"infer_fold2", pass_infer_fold},      /* fold what BN folding made constant */
    {"dce", pass_dce},
    {"outputs", pass_outputs},             /* every output written by a kernel */
    {"hidden", pass_hidden},               /* dims of data-dependent outputs, kernel scratch */
    {"layout", pass_layout},               /* blocked convolutions, layout propagation */
    {"winograd", pass_winograd},           /* 3x3 stride-1 blocked convs as Winograd F(2x2,3x3) */
    {"views", pass_views},
    {"fuse", pass_fuse},
    {"plan_memory", pass_plan_memory},
};
const int CTVM_N_PASSES = (int)(sizeof CTVM_PASSES / sizeof CTVM_PASSES[0]);

int passes_run(Graph *g, Diag *d, const char *dump_after, FILE *dump)
{
    for (int i = 0; i < CTVM_N_PASSES; i++) {
        if (CTVM_PASSES[i].run(g, d) != 0)
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
