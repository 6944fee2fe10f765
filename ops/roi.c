/* roi.c - RoiAlign (10, 16, 22) and MaxRoiPool (1, 22): pooling of
 * regions of interest of a 4-D X [N, C, H, W] into [R, C, ph, pw]. How many
 * samples (RoiAlign with sampling_ratio 0) or pixels (MaxRoiPool) a bin
 * covers depends on the ROI values, which are run-time data, so both are
 * runtime kernels (templates/kernel_roialign.h, kernel_maxroipool.h, where
 * the semantics are documented) called from a one-statement loop nest.
 * RoiAlign: rois [R, 4] ([x1, y1, x2, y2], the type of X), batch_indices
 * int64 [R]; version 10 has no coordinate_transformation_mode and behaves
 * as "output_half_pixel" (no half-pixel offset), versions 16 and later
 * default to "half_pixel". MaxRoiPool: rois [R, 5] ([batch, x1, y1, x2, y2]).
 * float16/float32/float64 (bfloat16 from version 22).
 *
 * Normalised attributes (after infer): "roi_ph", "roi_pw" (output bins),
 * "roi_sr" (sampling_ratio), "roi_max" (RoiAlign mode max), "roi_half"
 * (half_pixel), "spatial_scale". */
#include <string.h>

#include "ops/compute.h"
#include "ops/op_util.h"
#include "ops/ops.h"

int op_roi_infer(Graph *g, int node, Diag *d)
{
    Node *n = &g->nodes[node];
    int align = n->op == OP_ROIALIGN, ver = n->version;
    if (opu_check_arity(g, node, d, align ? 3 : 2, align ? 3 : 2, 1, 1))
        return -1;
    Value *x = opu_in(g, node, 0), *rois = opu_in(g, node, 1);
    DType t = x->dtype;
    if (!(t == DT_FLOAT32 || t == DT_FLOAT64 || t == DT_FLOAT16 || (t == DT_BFLOAT16 && ver >= 22)))
        return diag_error(d, g, node, "input type %s not supported by %s-%d", dtype_name(t), n->op_type, ver);
    if (x->shape.rank != 4)
        return diag_error(d, g, node, "X must be 4-D [N, C, H, W], got %s", opu_shape_str(&x->shape));
    int64_t cols = align ? 4 : 5;
    if (rois->dtype != t || rois->shape.rank != 2 || rois->shape.dims[1] != cols)
        return diag_error(d, g, node, "rois must be %s [num_rois, %lld], got %s %s", dtype_name(t), (long long)cols,
                          dtype_name(rois->dtype), opu_shape_str(&rois->shape));
    int64_t R = rois->shape.dims[0], ph, pw, sr = 0;
    int is_max = 0, half = 0;
    if (align) {
        Value *bi = opu_in(g, node, 2);
        if (bi->dtype != DT_INT64 || bi->shape.rank != 1 || bi->shape.dims[0] != R)
            return diag_error(d, g, node, "batch_indices must be int64 [%lld], got %s %s", (long long)R,
                              dtype_name(bi->dtype), opu_shape_str(&bi->shape));
        ph = attr_int(n, "output_height", 1);
        pw = attr_int(n, "output_width", 1);
        sr = attr_int(n, "sampling_ratio", 0);
        const char *m = attr_string(n, "mode", "avg");
        if (!strcmp(m, "max"))
            is_max = 1;
        else if (strcmp(m, "avg"))
            return diag_error(d, g, node, "unsupported mode '%s' (avg, max)", m);
        if (ver >= 16) {
            const char *ct = attr_string(n, "coordinate_transformation_mode", "half_pixel");
            if (!strcmp(ct, "half_pixel"))
                half = 1;
            else if (strcmp(ct, "output_half_pixel"))
                return diag_error(d, g, node, "unsupported coordinate_transformation_mode '%s'", ct);
        }
        if (sr < 0)
            return diag_error(d, g, node, "sampling_ratio must not be negative");
    } else {
        int np = 0;
        const int64_t *ps = attr_ints(n, "pooled_shape", &np);
        if (!ps || np != 2)
            return diag_error(d, g, node, "pooled_shape (2 values) is required");
        ph = ps[0];
        pw = ps[1];
    }
    if (ph < 1 || pw < 1 || ph > INT32_MAX || pw > INT32_MAX)
        return diag_error(d, g, node, "the pooled output must have positive extents");
    int64_t dims[4] = {R, x->shape.dims[1], ph, pw}, tot;
    Shape out = shape_make(4, dims);
    if (opu_numel(g, node, d, &out, &tot))
        return -1;
    RoiAttrs *ra = &n->at.roi;
    ra->ph = ph, ra->pw = pw, ra->sampling_ratio = sr, ra->is_max = is_max, ra->half_pixel = half;
    ra->spatial_scale = attr_float(n, "spatial_scale", 1.0f);
    node_set_float(g, node, "spatial_scale", ra->spatial_scale);
    opu_set_out(g, node, 0, t, out);
    return 0;
}

int compute_roi(ComputeCtx *cx, int node, ComputeDef *def)
{
    const Node *n = &cx->g->nodes[node];
    const Value *x = &cx->g->values[n->in[0]], *y = &cx->g->values[n->out[0]];
    int align = n->op == OP_ROIALIGN;
    LBuf *bufs[4];
    int written[4] = {0, 0, 0, 0}, nb = 0;
    bufs[nb++] = cx->buf_of(cx, n->in[0]);
    bufs[nb++] = cx->buf_of(cx, n->in[1]);
    if (align)
        bufs[nb++] = cx->buf_of(cx, n->in[2]);
    written[nb] = 1;
    bufs[nb++] = cx->buf_of(cx, n->out[0]);
    int64_t ia[11] = {x->dtype, x->shape.dims[0], x->shape.dims[1], x->shape.dims[2], x->shape.dims[3],
                      y->shape.dims[0], n->at.roi.ph, n->at.roi.pw,
                      n->at.roi.sampling_ratio, n->at.roi.is_max, n->at.roi.half_pixel};
    double fa[1] = {n->at.roi.spatial_scale};
    def->custom = ls_call(cx->lb, align ? "ctvm_k_roialign" : "ctvm_k_maxroipool", nb, bufs, written,
                          align ? 11 : 8, ia, 1, fa);
    return 0;
}

DEFINE_EVAL_BY_COMPUTE(roi)
