/* onnx_bind.c - the --bind NAME=FILE option: a graph input fixed to the
 * tensor in FILE (.npy, .npz or ONNX TensorProto .pb) becomes a constant
 * Value before shape inference, so inputs that decide output shapes (a
 * Reshape shape, Slice starts, TopK k, Resize sizes...) can be graph inputs.
 *
 * The tensor must have the input's declared element type and rank, and the
 * size of every declared dim that is fixed and positive (symbolic, unknown,
 * -1 and 0 dims take any size). From an .npz file the entry named like the
 * input is used, or the only entry. The bound input is no runtime input of
 * the compiled model. */
#include <string.h>

#include "onnx_internal.h"
#include "tensor_io.h"

const OnnxBind *onnx_bind_find(const OnnxLoadOptions *opt, const char *name)
{
    for (int i = 0; opt && i < opt->n_binds; i++)
        if (strcmp(opt->binds[i].name, name) == 0)
            return &opt->binds[i];
    return NULL;
}

int onnx_bind_apply(OnnxLoadCtx *c, int id, const OnnxBind *b)
{
    Graph *g = c->g;
    Value *v = &g->values[id];
    Tensor *ts;
    int n;
    if (tensor_read_file(b->path, g->arena, &ts, &n, c->d))
        return diag_error(c->d, g, -1, "--bind %s=%s: cannot read the file (see above)", b->name, b->path);
    const Tensor *t = n == 1 ? &ts[0] : NULL;
    for (int i = 0; i < n && n > 1; i++)
        if (ts[i].name && strcmp(ts[i].name, b->name) == 0)
            t = &ts[i];
    if (!t)
        return diag_error(c->d, g, -1, "--bind %s=%s: the file holds %d tensors and none is named '%s'",
                          b->name, b->path, n, b->name);
    char want[128], got[128];
    shape_str(&v->shape, want, sizeof want);
    shape_str(&t->shape, got, sizeof got);
    if (t->dtype != v->dtype)
        return diag_error(c->d, g, -1, "--bind %s=%s: input '%s' is %s, the file holds %s", b->name,
                          b->path, b->name, dtype_name(v->dtype), dtype_name(t->dtype));
    int bad = v->shape.rank >= 0 && v->shape.rank != t->shape.rank;
    for (int i = 0; !bad && v->shape.rank >= 0 && i < v->shape.rank; i++)
        bad = v->shape.dims[i] > 0 && v->shape.dims[i] != t->shape.dims[i];
    if (bad)
        return diag_error(c->d, g, -1, "--bind %s=%s: input '%s' is declared %s, the file holds shape %s",
                          b->name, b->path, b->name, want, got);
    v->shape = t->shape;
    for (int i = 0; i < CTVM_MAX_RANK; i++)
        v->dim_param[i] = NULL;
    int64_t bytes = 0;
    if (!value_bytes(v, &bytes))
        return diag_error(c->d, g, -1, "--bind %s=%s: tensor too large", b->name, b->path);
    v->data = arena_alloc(g->arena, bytes ? (size_t)bytes : 1);
    if (bytes)
        memcpy(v->data, t->data, (size_t)bytes);
    v->storage = STORE_CONST;
    return 0;
}

int onnx_bind_check_used(OnnxLoadCtx *c, const OnnxLoadOptions *opt, const Onnx__GraphProto *gp)
{
    for (int k = 0; opt && k < opt->n_binds; k++) {
        const char *name = opt->binds[k].name;
        int found = 0;
        for (size_t i = 0; i < gp->n_input && !found; i++)
            found = gp->input[i]->name && strcmp(gp->input[i]->name, name) == 0;
        for (size_t i = 0; i < gp->n_initializer && found; i++)
            if (gp->initializer[i]->name && strcmp(gp->initializer[i]->name, name) == 0)
                return diag_error(c->d, c->g, -1, "--bind names '%s', which is an initializer, not a "
                                                  "runtime input", name);
        if (!found)
            return diag_error(c->d, c->g, -1, "--bind names '%s', which is not an input of the model", name);
    }
    return 0;
}
