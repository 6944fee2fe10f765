/* kernel_maxroipool.h - MaxRoiPool (Caffe's and onnxruntime's ROI
 * pooling). ROI r = [batch, x1, y1, x2, y2]: its corners scaled by
 * spatial_scale (in float32 below float64) and rounded (half away from zero) give a box of at least
 * 1 x 1 pixels, cut into ph x pw bins [floor(i * size / p), ceil((i + 1) *
 * size / p)) offset by the box start and clipped to the image; each output
 * is the maximum of its bin, 0 for an empty bin (or a batch index outside
 * the input). The bins depend on the ROI values, hence a kernel.
 * buf: X [N,C,H,W], rois [R,5] (the type of X), Y [R,C,ph,pw];
 * iarg: dtype, N, C, H, W, R, ph, pw; farg: spatial_scale. */
static int64_t ctvm_kmrp_round(double v)
{
    double a = v < 0 ? -v : v;
    a = a < 4e18 ? a : 4e18;
    int64_t i = (int64_t)(a + 0.5);
    return v < 0 ? -i : i;
}

/* coordinate * scale in float32 like onnxruntime, float64 for float64 */
static double ctvm_kmrp_scale(double v, double scale, int dt)
{
    return dt == CTVM_DT_F64 ? v * scale : (double)(float)(v * scale);
}

static int64_t ctvm_kmrp_clip(int64_t v, int64_t hi)
{
    return v < 0 ? 0 : v > hi ? hi : v;
}

static void ctvm_k_maxroipool(void *const *buf, const int64_t *iarg, const double *farg)
{
    const void *x = buf[0], *rois = buf[1];
    void *y = buf[2];
    int dt = (int)iarg[0];
    int64_t N = iarg[1], C = iarg[2], H = iarg[3], W = iarg[4], R = iarg[5], PH = iarg[6], PW = iarg[7];
    double scale = farg[0];
    for (int64_t r = 0; r < R; r++) {
        double bd = ctvm_kget_f(rois, r * 5, dt);
        int64_t b = bd >= 0 && bd < (double)N ? (int64_t)bd : -1;
        int64_t sw = ctvm_kmrp_round(ctvm_kmrp_scale(ctvm_kget_f(rois, r * 5 + 1, dt), scale, dt));
        int64_t sh = ctvm_kmrp_round(ctvm_kmrp_scale(ctvm_kget_f(rois, r * 5 + 2, dt), scale, dt));
        int64_t ew = ctvm_kmrp_round(ctvm_kmrp_scale(ctvm_kget_f(rois, r * 5 + 3, dt), scale, dt));
        int64_t eh = ctvm_kmrp_round(ctvm_kmrp_scale(ctvm_kget_f(rois, r * 5 + 4, dt), scale, dt));
        double rh = (double)(eh - sh + 1 > 1 ? eh - sh + 1 : 1), rw = (double)(ew - sw + 1 > 1 ? ew - sw + 1 : 1);
        double bh = rh / (double)PH, bw = rw / (double)PW;
        for (int64_t c = 0; c < C; c++)
            for (int64_t ph = 0; ph < PH; ph++)
                for (int64_t pw = 0; pw < PW; pw++) {
                    double fh0 = (double)ph * bh, fw0 = (double)pw * bw;
                    double fh1 = (double)(ph + 1) * bh, fw1 = (double)(pw + 1) * bw;
                    int64_t h0 = (int64_t)fh0, w0 = (int64_t)fw0, h1 = (int64_t)fh1, w1 = (int64_t)fw1;
                    h1 += (double)h1 < fh1;
                    w1 += (double)w1 < fw1;
                    h0 = ctvm_kmrp_clip(h0 + sh, H), h1 = ctvm_kmrp_clip(h1 + sh, H);
                    w0 = ctvm_kmrp_clip(w0 + sw, W), w1 = ctvm_kmrp_clip(w1 + sw, W);
                    double m = 0.0;
                    if (b >= 0 && h1 > h0 && w1 > w0) {
                        int64_t base = (b * C + c) * H * W;
                        m = ctvm_kget_f(x, base + h0 * W + w0, dt);
                        for (int64_t i = h0; i < h1; i++)
                            for (int64_t j = w0; j < w1; j++) {
                                double v = ctvm_kget_f(x, base + i * W + j, dt);
                                m = v > m ? v : m;
                            }
                    }
                    ctvm_kset_f(y, ((r * C + c) * PH + ph) * PW + pw, dt, m);
                }
    }
}
