/* onnx_inputs.c - the model's runtime inputs and their shapes.
 *
 * A graph input that is also an initializer is a constant (older exporters
 * list every weight as an input) and is skipped here. Each other input gets
 * its element type and shape from its ValueInfo: dim_value gives a size,
 * dim_param (or nothing) gives -1 and the symbol's name in Value.dim_param.
 * A dim_value of -1 (paddle2onnx writes it) is unknown like a missing one;
 * other negative dims, dims above ONNX_MAX_DIM and ranks above CTVM_MAX_RANK
 * are refused (onnx_declared.c).
 * An input named by --bind becomes a constant instead (onnx_bind.c).
 * --input-shapes entries then give the size of every symbolic, unknown or
 * 0 dim (and refuse to change a fixed positive one), and finally
 * every runtime input must have a static shape (ctvm compiles for one shape)
 * whose dims and byte size are within ONNX_MAX_DIM and ONNX_MAX_TENSOR_BYTES,
 * the products computed overflow-safe. */
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"
#include "onnx_limits.h"
#include "onnx_tensor.h"

static int input_from_valueinfo(OnnxLoadCtx *c, const Onnx__ValueInfoProto *vi,
                                const OnnxLoadOptions *opt)
{
    Graph *g = c->g;
    const char *name = vi->name ? vi->name : "";
    if (!*name)
        return diag_error(c->d, g, -1, "a graph input has no name");
    if (namemap_get(&c->names, name) >= 0)
        return diag_error(c->d, g, -1, "graph input '%s' is listed twice", name);
    const Onnx__TypeProto *tp = vi->type;
    if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE || !tp->tensor_type)
        return diag_error(c->d, g, -1, "input '%s' is not a tensor (sequences, maps and "
                                       "optionals are not supported)", name);
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    int code = tt->has_elem_type ? tt->elem_type : 0;
    DType dt = dtype_from_onnx(code);
    if (dt == DT_UNDEFINED)
        return diag_error(c->d, g, -1, "input '%s' has unsupported element type %s (%d)", name,
                          onnx_dtype_name(code), code);
    if (onnx_declared_check(c, "input", vi, 1))
        return -1;
    int id = graph_add_value(g, name);
    namemap_put(&c->names, id);
    Value *v = &g->values[id];
    v->dtype = dt;
    if (tt->shape) {
        const Onnx__TensorShapeProto *sp = tt->shape;
        v->shape.rank = (int)sp->n_dim;
        for (size_t i = 0; i < sp->n_dim; i++) {
            const Onnx__TensorShapeProto__Dimension *dim = sp->dim[i];
            v->shape.dims[i] = -1;
            if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE) {
                /* -1 (paddle2onnx writes it): unknown; other negatives refused above */
                v->shape.dims[i] = dim->dim_value < 0 ? -1 : dim->dim_value;
            } else if (dim->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM &&
                       dim->dim_param && *dim->dim_param) {
                v->dim_param[i] = arena_strdup(g->arena, dim->dim_param);
            }
        }
    }
    const OnnxBind *b = onnx_bind_find(opt, name);
    if (b)
        return onnx_bind_apply(c, id, b);
    graph_add_input(g, id);
    return 0;
}

int onnx_inputs_add(OnnxLoadCtx *c, const Onnx__GraphProto *gp, const OnnxLoadOptions *opt)
{
    for (size_t i = 0; i < gp->n_input; i++) {
        const Onnx__ValueInfoProto *vi = gp->input[i];
        int id = vi->name ? namemap_get(&c->names, vi->name) : -1;
        if (id >= 0 && value_is_const(&c->g->values[id]))
            continue; /* a weight listed as an input */
        if (input_from_valueinfo(c, vi, opt))
            return -1;
    }
    return 0;
}

/* "x, y, z" of the runtime inputs, for messages. */
static void input_list(const Graph *g, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = 0;
    for (int i = 0; i < g->n_inputs && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "",
                              g->values[g->inputs[i]].name);
}

int onnx_inputs_override(OnnxLoadCtx *c, const OnnxLoadOptions *opt)
{
    Graph *g = c->g;
    for (int k = 0; opt && k < opt->n_input_shapes; k++) {
        const OnnxInputShape *e = &opt->input_shapes[k];
        int id = namemap_get(&c->names, e->name);
        if (onnx_bind_find(opt, e->name))
            return diag_error(c->d, g, -1, "--input-shapes names '%s', which --bind fixes", e->name);
        if (id < 0 || !g->values[id].is_input) {
            char list[512];
            input_list(g, list, sizeof list);
            if (id >= 0)
                return diag_error(c->d, g, -1,
                                  "--input-shapes names '%s', which is an initializer, not an "
                                  "input; the inputs are: %s", e->name, list);
            return diag_error(c->d, g, -1,
                              "--input-shapes names '%s', which is not an input of the model; "
                              "the inputs are: %s", e->name, list);
        }
        Value *v = &g->values[id];
        if (v->shape.rank >= 0 && v->shape.rank != e->shape.rank) {
            char sb[128];
            return diag_error(c->d, g, -1,
                              "--input-shapes gives '%s' rank %d, but the model declares %s "
                              "(rank %d)", e->name, e->shape.rank,
                              shape_str(&v->shape, sb, sizeof sb), v->shape.rank);
        }
        /* a fixed positive dim must agree; symbolic, unknown (-1) and 0
           (some exporters' "unknown") dims take the given size */
        for (int i = 0; v->shape.rank >= 0 && i < v->shape.rank; i++)
            if (v->shape.dims[i] > 0 && v->shape.dims[i] != e->shape.dims[i]) {
                char sb[128], eb[128];
                return diag_error(c->d, g, -1,
                                  "--input-shapes gives '%s' shape %s, but the model fixes dim %d "
                                  "to %lld (declared %s)", e->name,
                                  shape_str(&e->shape, eb, sizeof eb), i,
                                  (long long)v->shape.dims[i], shape_str(&v->shape, sb, sizeof sb));
            }
        v->shape = e->shape;
        for (int i = 0; i < CTVM_MAX_RANK; i++)
            v->dim_param[i] = NULL;
    }
    return 0;
}

/* A static input's dims and byte size within ctvm's limits (the shape may
 * come from --input-shapes, so the declared dims' check is not enough). */
static int check_input_size(OnnxLoadCtx *c, const Value *v)
{
    char sb[160];
    shape_str(&v->shape, sb, sizeof sb);
    int64_t numel = 1, bytes;
    for (int i = 0; i < v->shape.rank; i++) {
        if (v->shape.dims[i] > ONNX_MAX_DIM)
            return diag_error(c->d, c->g, -1,
                              "input '%s' %s: dimension %lld at axis %d is above ctvm's limit of "
                              "%lld", v->name, sb, (long long)v->shape.dims[i], i,
                              (long long)ONNX_MAX_DIM);
        if (!i64_mul(numel, v->shape.dims[i], &numel))
            return diag_error(c->d, c->g, -1, "input '%s' %s: the element count overflows",
                              v->name, sb);
    }
    if (dtype_bits(v->dtype) == 0) /* strings, complex: refused later, naming the node */
        return 0;
    if (!dtype_bytes(v->dtype, numel, &bytes) || bytes > ONNX_MAX_TENSOR_BYTES)
        return diag_error(c->d, c->g, -1,
                          "input '%s' %s: %lld %s elements are more than ctvm's limit of %lld "
                          "bytes for one tensor", v->name, sb, (long long)numel,
                          dtype_name(v->dtype), (long long)ONNX_MAX_TENSOR_BYTES);
    return 0;
}

int onnx_inputs_check_static(OnnxLoadCtx *c)
{
    Graph *g = c->g;
    for (int k = 0; k < g->n_inputs; k++) {
        Value *v = &g->values[g->inputs[k]];
        if (v->shape.rank < 0)
            return diag_error(c->d, g, -1, "input '%s' has no shape in the model; give "
                                           "--input-shapes '%s:[...]'", v->name, v->name);
        for (int i = 0; i < v->shape.rank; i++) {
            if (v->shape.dims[i] >= 0)
                continue;
            if (v->dim_param[i])
                return diag_error(c->d, g, -1, "input '%s' has symbolic dimension '%s'; give "
                                               "--input-shapes '%s:[...]'",
                                  v->name, v->dim_param[i], v->name);
            return diag_error(c->d, g, -1, "input '%s' has unknown dimension %d; give "
                                           "--input-shapes '%s:[...]'", v->name, i, v->name);
        }
        if (check_input_size(c, v))
            return -1;
    }
    return 0;
}
