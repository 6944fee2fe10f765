/* op_attrs.c - op_attrs_print(): the ctvm-invented typed fields of a node
 * (ir/op_attrs.h) as text for graph_dump. The normalised ONNX attributes
 * are printed from Node.attrs; only what has no ONNX attribute is here. */
#include <inttypes.h>

#include "graph.h"

static void pi(FILE *f, const char *name, int64_t v)
{
    fprintf(f, ", %s=%" PRId64, name, v);
}

static void pf(FILE *f, const char *name, float v)
{
    fprintf(f, ", %s=%.9g", name, v);
}

static void pis(FILE *f, const char *name, const int64_t *v, int n)
{
    fprintf(f, ", %s=[", name);
    for (int i = 0; i < n; i++)
        fprintf(f, "%s%" PRId64, i ? "," : "", v[i]);
    fputc(']', f);
}

/* rank of input 0 (0 when absent) */
static int in_rank(const Graph *g, const Node *n)
{
    return n->n_in > 0 && n->in[0] >= 0 ? g->values[n->in[0]].shape.rank : 0;
}

void op_attrs_print(FILE *f, const Graph *g, const Node *n)
{
    const OpAttrs *a = &n->at;
    switch (n->op) {
    case OP_SOFTMAX: case OP_LOGSOFTMAX: case OP_HARDMAX:
        pi(f, "coerce2d", a->softmax.coerce2d);
        break;
    case OP_RNN: case OP_GRU: case OP_LSTM: {
        const RnnAttrs *r = &a->rnn;
        pi(f, "rnn_h", r->hidden);
        pi(f, "rnn_dirs", r->dirs);
        pi(f, "rnn_layout", r->layout);
        int64_t act[RNN_MAX_ACTS];
        for (int k = 0; k < r->n_act; k++)
            act[k] = r->act[k];
        pis(f, "rnn_act", act, r->n_act);
        if (r->w_transposed)
            pi(f, "rnn_wt", 1);
        if (r->w_panels > 1)
            pi(f, "rnn_wp", r->w_panels);
        if (r->r_panels > 1)
            pi(f, "rnn_rp", r->r_panels);
        if (r->q8)
            pi(f, "rnn_q8", 1);
        if (r->r_pad)
            pi(f, "rnn_rpad", r->r_pad);
        break;
    }
    case OP_SDPA:
        pi(f, "scale_mode", a->sdpa.scale_mode);
        pf(f, "scale", a->sdpa.scale);
        pis(f, "mask_strides", a->sdpa.mask_strides, 4);
        break;
    case OP_BITSHIFT:
        pi(f, "left", a->eltwise.shift_left);
        break;
    case OP_GELU:
        pi(f, "tanh", a->eltwise.tanh);
        break;
    case OP_PAD: case OP_CENTERCROPPAD: {
        pis(f, "pads", a->pad.pads, 2 * in_rank(g, n));
        pi(f, "padmode", a->pad.mode);
        pi(f, "cv_input", a->pad.cv_input);
        break;
    }
    case OP_RESIZE: case OP_UPSAMPLE: {
        const ResizeAttrs *r = &a->resize;
        int rank = in_rank(g, n);
        pi(f, "rs_mode", r->mode);
        pi(f, "rs_ctm", r->ctm);
        pi(f, "rs_nearest", r->nearest);
        pis(f, "rs_scale", r->scale_bits, rank);
        pis(f, "rs_axis", r->resized, rank);
        pis(f, "rs_roi", r->roi_pos, rank);
        pi(f, "rs_roi_n", r->roi_n);
        pi(f, "rs_aa", r->antialias);
        pi(f, "rs_excl", r->exclude_outside);
        pf(f, "rs_a", r->cubic_a);
        pf(f, "rs_extrap", r->extrapolation);
        break;
    }
    case OP_HANNWINDOW: case OP_HAMMINGWINDOW: case OP_BLACKMANWINDOW:
        pi(f, "len", a->signal.len);
        break;
    case OP_DFT:
        pi(f, "dft_axis", a->signal.axis);
        pi(f, "len", a->signal.len);
        pi(f, "n_red", a->signal.n_red);
        pi(f, "irfft", a->signal.irfft);
        break;
    case OP_STFT:
        pi(f, "len", a->signal.len);
        pi(f, "step", a->signal.step);
        pi(f, "n_red", a->signal.n_red);
        break;
    case OP_QUANTIZELINEAR: case OP_DEQUANTIZELINEAR: case OP_DYNAMICQUANTIZELINEAR:
        pi(f, "qaxis", a->quant.axis);
        pi(f, "qmode", a->quant.qmode);
        pi(f, "narrow", a->quant.narrow);
        pi(f, "xint", a->quant.int_scale);
        pi(f, "wide", a->quant.wide);
        break;
    case OP_TRILU:
        pi(f, "kc", a->trilu.k_const);
        pi(f, "trilu_k", a->trilu.k);
        break;
    case OP_ONEHOT:
        pi(f, "depth", a->onehot.depth);
        pi(f, "wrap", a->onehot.wrap);
        break;
    case OP_MAXUNPOOL:
        pis(f, "unpool_shape", a->maxunpool.shape, in_rank(g, n));
        break;
    case OP_NLLLOSS: case OP_SCELOSS:
        pi(f, "reduction_code", a->loss.reduction);
        pi(f, "has_ii", a->loss.has_ignore_index);
        break;
    case OP_CAUSALCONVWITHSTATE:
        pi(f, "cc_silu", a->causalconv.silu);
        break;
    case OP_DEPTHTOSPACE: case OP_SPACETODEPTH:
        pi(f, "crd", a->depthspace.crd);
        break;
    case OP_GRIDSAMPLE:
        pi(f, "gs_mode", a->gridsample.mode);
        pi(f, "gs_pad", a->gridsample.padding);
        break;
    case OP_ROIALIGN: case OP_MAXROIPOOL:
        pi(f, "roi_ph", a->roi.ph);
        pi(f, "roi_pw", a->roi.pw);
        pi(f, "roi_sr", a->roi.sampling_ratio);
        pi(f, "roi_max", a->roi.is_max);
        pi(f, "roi_half", a->roi.half_pixel);
        break;
    case OP_CAST: case OP_CASTLIKE:
        pi(f, "round_code", a->cast.round_mode);
        break;
    case OP_ATTENTION:
        pi(f, "softmax_dtype", a->attention.softmax_dtype);
        break;
    case OP_LINEARATTENTION:
        pi(f, "rule_kind", a->linattn.rule);
        break;
    case OP_LPPOOL: case OP_GLOBALLPPOOL: case OP_MAXPOOL: case OP_AVGPOOL: case OP_GLOBALAVGPOOL:
    case OP_GLOBALMAXPOOL:
        if (n->op == OP_LPPOOL || n->op == OP_GLOBALLPPOOL)
            pf(f, "p_value", a->pool.p);
        if (a->pool.blocked)
            pi(f, "blocked", 1);
        break;
    case OP_CONV_NCHWC: case OP_WINOGRAD_CONV:
        pi(f, "depthwise", a->conv.depthwise);
        break;
    case OP_PACK:
        pi(f, "block", a->layout.block);
        break;
    case OP_UNPACK:
        pi(f, "channels", a->layout.channels);
        break;
    case OP_PADHW:
        pis(f, "pads", a->layout.pads, 4);
        break;
    case OP_TFIDFVECTORIZER:
        pi(f, "tf_mode", a->tfidf.mode);
        pi(f, "tf_rows", a->tfidf.rows);
        pi(f, "tf_cols", a->tfidf.cols);
        pi(f, "tf_out", a->tfidf.out);
        break;
    case OP_MATMULINTEGER: case OP_QLINEARMATMUL: case OP_CONVINTEGER: case OP_QLINEARCONV: {
        int64_t pm[QLINEAR_MAX_INPUTS];
        for (int i = 0; i < QLINEAR_MAX_INPUTS; i++)
            pm[i] = a->qlinear.per_axis[i];
        pis(f, "per_axis", pm, n->n_in < QLINEAR_MAX_INPUTS ? n->n_in : QLINEAR_MAX_INPUTS);
        break;
    }
    case OP_COL2IM:
        pis(f, "ci_block", a->col2im.block, a->col2im.win.n);
        pis(f, "ci_cols", a->col2im.cols, a->col2im.win.n);
        break;
    case OP_BATCHNORM:
        pi(f, "training", a->bn.training);
        pi(f, "spatial", a->bn.spatial);
        break;
    case OP_CUMSUM: case OP_CUMPROD:
        pi(f, "cum_axis", a->cumsum.axis);
        break;
    case OP_TOPK:
        if (a->topk.k_runtime)
            pi(f, "k_runtime", 1);
        break;
    case OP_CONSTANTOFSHAPE:
        if (a->shape.shape_runtime)
            pi(f, "shape_runtime", 1);
        break;
    case OP_UNIQUE: case OP_COMPRESS:
        pi(f, "flat_axis", a->dynamic.flat_axis);
        break;
    case OP_NONMAXSUPPRESSION:
        pi(f, "max_boxes", a->dynamic.max_boxes);
        pi(f, "max_boxes_input", a->dynamic.max_boxes_input);
        break;
    default:
        if (op_is_elementwise(n->op) && a->eltwise.legacy)
            pi(f, "legacy_axis", a->eltwise.legacy_axis);
        break;
    }
    if (n->scratch.bytes > 0) {
        pi(f, "scratch_bytes", n->scratch.bytes);
        pi(f, "scratch_dtype", n->scratch.dtype);
        if (n->scratch.per_thread)
            pi(f, "scratch_per_thread", 1);
    }
    if (n->scratch.value >= 0)
        pi(f, "scratch_value", n->scratch.value);
    if (n->scratch.bytes_u8 > 0)
        pi(f, "scratch_u8_bytes", n->scratch.bytes_u8);
    if (n->scratch.value_u8 >= 0)
        pi(f, "scratch_u8_value", n->scratch.value_u8);
    if (n->dyn.kind >= 0)
        pi(f, "dyn_kind", n->dyn.kind);
    for (int k = 0; k < n->dyn.n_prog; k++)
        if (n->dyn.prog[k]) {
            char nm[24];
            snprintf(nm, sizeof nm, "dyn_prog%d", k);
            pis(f, nm, n->dyn.prog[k], n->dyn.prog_len[k]);
        }
}
