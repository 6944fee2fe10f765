/* kernel_roialign.h - RoiAlign, as the ONNX reference (and onnxruntime)
 * computes it. For ROI r = [x1, y1, x2, y2] of image batch_indices[r],
 * start = coordinate * spatial_scale - offset (offset 0.5 with half_pixel,
 * else 0, when ROIs smaller than 1 become 1), the ROI is cut into ph x pw
 * bins of sampling grids gh x gw (sampling_ratio, or ceil(roi extent / bins)
 * when it is 0: that is why this is a kernel and not a loop nest). Each
 * sample point y, x is bilinear in X, with 0 beyond [-1, H] x [-1, W] and
 * clamped to the last row/column; "avg" averages the samples, "max" takes
 * the largest of the four weighted corners over the samples.
 * buf: X [N,C,H,W], rois [R,4] (the type of X), batch_indices (int64 [R]),
 *      Y [R,C,ph,pw] (the type of X);
 * iarg: dtype, N, C, H, W, R, ph, pw, sampling_ratio, max mode, half_pixel;
 * farg: spatial_scale. The geometry is rounded to float32 after every step
 * for the types other than float64, as the reference computes it (a ROI
 * extent of 24.0000004 instead of 24 would change the sampling grid). */
static double ctvm_kra_r(double v, int dt)
{
    return dt == CTVM_DT_F64 ? v : (double)(float)v;
}
static void ctvm_k_roialign(void *const *buf, const int64_t *iarg, const double *farg)
{
    const void *x = buf[0], *rois = buf[1];
    const int64_t *bi = (const int64_t *)buf[2];
    void *y = buf[3];
    int dt = (int)iarg[0];
    int64_t N = iarg[1], C = iarg[2], H = iarg[3], W = iarg[4], R = iarg[5], PH = iarg[6], PW = iarg[7];
    int64_t sr = iarg[8];
    int is_max = (int)iarg[9], half = (int)iarg[10];
    double scale = farg[0], off = half ? 0.5 : 0.0;
    for (int64_t r = 0; r < R; r++) {
        double sw = ctvm_kra_r(ctvm_kra_r(ctvm_kget_f(rois, r * 4 + 0, dt) * scale, dt) - off, dt);
        double sh = ctvm_kra_r(ctvm_kra_r(ctvm_kget_f(rois, r * 4 + 1, dt) * scale, dt) - off, dt);
        double ew = ctvm_kra_r(ctvm_kra_r(ctvm_kget_f(rois, r * 4 + 2, dt) * scale, dt) - off, dt);
        double eh = ctvm_kra_r(ctvm_kra_r(ctvm_kget_f(rois, r * 4 + 3, dt) * scale, dt) - off, dt);
        double rw = ctvm_kra_r(ew - sw, dt), rh = ctvm_kra_r(eh - sh, dt);
        if (!half) {
            rw = rw > 1.0 ? rw : 1.0;
            rh = rh > 1.0 ? rh : 1.0;
        }
        double bh = ctvm_kra_r(rh / (double)PH, dt), bw = ctvm_kra_r(rw / (double)PW, dt);
        int64_t gh = sr, gw = sr;
        if (sr <= 0) { /* ceil, kept finite and bounded */
            double ch = bh > 0 ? bh : 0, cw = bw > 0 ? bw : 0;
            ch = ch < 1e6 ? ch : 1e6;
            cw = cw < 1e6 ? cw : 1e6;
            gh = (int64_t)ch;
            gh += (double)gh < ch;
            gw = (int64_t)cw;
            gw += (double)gw < cw;
        }
        int64_t count = gh * gw > 1 ? gh * gw : 1;
        int64_t b = bi[r];
        for (int64_t c = 0; c < C; c++) {
            int64_t base = ((b >= 0 && b < N ? b : 0) * C + c) * H * W;
            for (int64_t ph = 0; ph < PH; ph++)
                for (int64_t pw = 0; pw < PW; pw++) {
                    double acc = 0.0;
                    int seen = 0;
                    for (int64_t iy = 0; iy < gh; iy++) {
                        double yy = ctvm_kra_r(ctvm_kra_r(sh + ctvm_kra_r((double)ph * bh, dt), dt) +
                                               ctvm_kra_r(ctvm_kra_r(((double)iy + 0.5) * bh, dt) / (double)gh, dt), dt);
                        for (int64_t ix = 0; ix < gw; ix++) {
                            double xx = ctvm_kra_r(ctvm_kra_r(sw + ctvm_kra_r((double)pw * bw, dt), dt) +
                                                   ctvm_kra_r(ctvm_kra_r(((double)ix + 0.5) * bw, dt) / (double)gw, dt), dt);
                            double v1 = 0, v2 = 0, v3 = 0, v4 = 0;
                            if (!(yy < -1.0 || yy > (double)H || xx < -1.0 || xx > (double)W) && b >= 0 && b < N) {
                                double py = yy > 0 ? yy : 0, px = xx > 0 ? xx : 0;
                                int64_t yl = (int64_t)py, xl = (int64_t)px, yh, xh;
                                if (yl >= H - 1) {
                                    yh = yl = H - 1;
                                    py = (double)yl;
                                } else {
                                    yh = yl + 1;
                                }
                                if (xl >= W - 1) {
                                    xh = xl = W - 1;
                                    px = (double)xl;
                                } else {
                                    xh = xl + 1;
                                }
                                double ly = py - (double)yl, lx = px - (double)xl, hy = 1.0 - ly, hx = 1.0 - lx;
                                v1 = hy * hx * ctvm_kget_f(x, base + yl * W + xl, dt);
                                v2 = hy * lx * ctvm_kget_f(x, base + yl * W + xh, dt);
                                v3 = ly * hx * ctvm_kget_f(x, base + yh * W + xl, dt);
                                v4 = ly * lx * ctvm_kget_f(x, base + yh * W + xh, dt);
                            }
                            if (is_max) {
                                double m = v1;
                                m = v2 > m ? v2 : m;
                                m = v3 > m ? v3 : m;
                                m = v4 > m ? v4 : m;
                                acc = !seen || m > acc ? m : acc;
                                seen = 1;
                            } else {
                                acc += v1 + v2 + v3 + v4;
                            }
                        }
                    }
                    if (!is_max)
                        acc /= (double)count;
                    ctvm_kset_f(y, ((r * C + c) * PH + ph) * PW + pw, dt, acc);
                }
        }
    }
}
