/* test_frontend.c - unit tests of the ONNX loader (frontend/onnx_load.h).
 *
 * Models are built in memory with the protobuf-c API (helpers ob_* below,
 * all memory from one test Arena), packed, and loaded with onnx_load_buffer;
 * the tests check the resulting Graph value by value, and that every kind of
 * bad input is refused with a message giving the reason. One test loads a
 * real model of the ONNX backend test data (Debian's libonnx-testdata). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "frontend/onnx_load.h"
#include "frontend/tensor_io.h"
#include "ir/graph.h"
#include "onnx/onnx.pb-c.h"

/* ---- building ONNX messages in memory ---- */

enum { OB_CAP = 32 }; /* room in every repeated field the helpers make */

static Arena *ob_arena;

static void *ob_alloc(size_t n)
{
    return arena_alloc(ob_arena, n);
}

static char *ob_str(const char *s)
{
    return arena_strdup(ob_arena, s);
}

static void *ob_copy(const void *p, size_t n)
{
    void *q = ob_alloc(n ? n : 1);
    if (n)
        memcpy(q, p, n);
    return q;
}

/* A tensor with type and dims only; callers fill one of the data fields. */
static Onnx__TensorProto *ob_tensor(const char *name, int onnx_type, int rank,
                                    const int64_t *dims)
{
    Onnx__TensorProto *t = ob_alloc(sizeof *t);
    onnx__tensor_proto__init(t);
    t->name = ob_str(name);
    t->has_data_type = 1;
    t->data_type = onnx_type;
    t->n_dims = (size_t)rank;
    t->dims = ob_copy(dims, (size_t)rank * sizeof(int64_t));
    return t;
}

static void ob_set_raw(Onnx__TensorProto *t, const void *data, size_t bytes)
{
    t->has_raw_data = 1;
    t->raw_data.len = bytes;
    t->raw_data.data = ob_copy(data, bytes);
}

static void ob_set_external(Onnx__TensorProto *t, const char *loc, const char *off,
                            const char *len)
{
    const char *keys[3] = {"location", "offset", "length"};
    const char *vals[3] = {loc, off, len};
    t->has_data_location = 1;
    t->data_location = ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    t->external_data = ob_alloc(3 * sizeof(void *));
    for (int i = 0; i < 3; i++) {
        if (!vals[i])
            continue;
        Onnx__StringStringEntryProto *e = ob_alloc(sizeof *e);
        onnx__string_string_entry_proto__init(e);
        e->key = ob_str(keys[i]);
        e->value = ob_str(vals[i]);
        t->external_data[t->n_external_data++] = e;
    }
}

/* dims[i] < 0 becomes dim_param params[i] (or an unset dim if params[i] is NULL). */
static Onnx__ValueInfoProto *ob_value_info(const char *name, int elem, int rank,
                                           const int64_t *dims, const char *const *params)
{
    Onnx__ValueInfoProto *vi = ob_alloc(sizeof *vi);
    onnx__value_info_proto__init(vi);
    vi->name = ob_str(name);
    Onnx__TypeProto *tp = ob_alloc(sizeof *tp);
    onnx__type_proto__init(tp);
    Onnx__TypeProto__Tensor *tt = ob_alloc(sizeof *tt);
    onnx__type_proto__tensor__init(tt);
    tt->has_elem_type = 1;
    tt->elem_type = elem;
    Onnx__TensorShapeProto *sp = ob_alloc(sizeof *sp);
    onnx__tensor_shape_proto__init(sp);
    sp->n_dim = (size_t)rank;
    sp->dim = ob_alloc((size_t)(rank ? rank : 1) * sizeof(void *));
    for (int i = 0; i < rank; i++) {
        Onnx__TensorShapeProto__Dimension *dim = ob_alloc(sizeof *dim);
        onnx__tensor_shape_proto__dimension__init(dim);
        if (dims[i] >= 0) {
            dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
            dim->dim_value = dims[i];
        } else if (params && params[i]) {
            dim->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM;
            dim->dim_param = ob_str(params[i]);
        }
        sp->dim[i] = dim;
    }
    tt->shape = sp;
    tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
    tp->tensor_type = tt;
    vi->type = tp;
    return vi;
}

static Onnx__NodeProto *ob_node(const char *op, const char *name, int n_in,
                                const char *const *ins, int n_out, const char *const *outs)
{
    Onnx__NodeProto *n = ob_alloc(sizeof *n);
    onnx__node_proto__init(n);
    n->op_type = ob_str(op);
    n->name = name ? ob_str(name) : NULL;
    n->n_input = (size_t)n_in;
    n->input = ob_alloc(OB_CAP * sizeof(char *));
    for (int i = 0; i < n_in; i++)
        n->input[i] = ob_str(ins[i]);
    n->n_output = (size_t)n_out;
    n->output = ob_alloc(OB_CAP * sizeof(char *));
    for (int i = 0; i < n_out; i++)
        n->output[i] = ob_str(outs[i]);
    n->attribute = ob_alloc(OB_CAP * sizeof(void *));
    return n;
}

static Onnx__AttributeProto *ob_attr(Onnx__NodeProto *n, const char *name,
                                     Onnx__AttributeProto__AttributeType type)
{
    Onnx__AttributeProto *a = ob_alloc(sizeof *a);
    onnx__attribute_proto__init(a);
    a->name = ob_str(name);
    a->has_type = 1;
    a->type = type;
    n->attribute[n->n_attribute++] = a;
    return a;
}

static void ob_attr_ints(Onnx__NodeProto *n, const char *name, int cnt, const int64_t *v)
{
    Onnx__AttributeProto *a = ob_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS);
    a->n_ints = (size_t)cnt;
    a->ints = ob_copy(v, (size_t)cnt * sizeof(int64_t));
}

static void ob_attr_int(Onnx__NodeProto *n, const char *name, int64_t v)
{
    Onnx__AttributeProto *a = ob_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT);
    a->has_i = 1;
    a->i = v;
}

static void ob_attr_string(Onnx__NodeProto *n, const char *name, const char *s)
{
    Onnx__AttributeProto *a = ob_attr(n, name, ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING);
    a->has_s = 1;
    a->s.len = strlen(s);
    a->s.data = (uint8_t *)ob_str(s);
}

typedef struct ObModel {
    Onnx__ModelProto *m;
    Onnx__GraphProto *g;
} ObModel;

static ObModel ob_model(int64_t opset)
{
    ObModel r;
    r.m = ob_alloc(sizeof *r.m);
    onnx__model_proto__init(r.m);
    r.m->has_ir_version = 1;
    r.m->ir_version = 8;
    r.m->producer_name = ob_str("ctvm-unit-test");
    Onnx__OperatorSetIdProto *op = ob_alloc(sizeof *op);
    onnx__operator_set_id_proto__init(op);
    op->domain = ob_str("");
    op->has_version = 1;
    op->version = opset;
    r.m->n_opset_import = 1;
    r.m->opset_import = ob_alloc(OB_CAP * sizeof(void *));
    r.m->opset_import[0] = op;
    r.g = ob_alloc(sizeof *r.g);
    onnx__graph_proto__init(r.g);
    r.g->name = ob_str("test_graph");
    r.g->node = ob_alloc(OB_CAP * sizeof(void *));
    r.g->initializer = ob_alloc(OB_CAP * sizeof(void *));
    r.g->input = ob_alloc(OB_CAP * sizeof(void *));
    r.g->output = ob_alloc(OB_CAP * sizeof(void *));
    r.m->graph = r.g;
    return r;
}

static uint8_t *ob_pack(const Onnx__ModelProto *m, size_t *len)
{
    *len = onnx__model_proto__get_packed_size(m);
    uint8_t *buf = ob_alloc(*len + 1);
    onnx__model_proto__pack(m, buf);
    return buf;
}

static int ob_write_file(const char *path, const void *data, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t put = len ? fwrite(data, 1, len, f) : 0;
    return fclose(f) == 0 && put == len ? 0 : -1;
}


/* ---- the test model ----
 * x:[N,3,4,4] -> Conv(W raw_data, B float_data) -> Relu -> Clip(min omitted,
 * max) -> Reshape(shape int64_data) -> y:[N,32]. W is also listed as a graph
 * input, as older exporters do. */

static const float W_VALUES[6] = {0.5f, 1.0f, 1.5f, 2.0f, 2.5f, 3.0f};
static const float B_VALUES[2] = {0.25f, -1.5f};
static const int64_t SHAPE_VALUES[2] = {-1, 32};

static ObModel conv_model(int64_t opset)
{
    ObModel r = ob_model(opset);
    Onnx__GraphProto *g = r.g;
    int64_t wd[4] = {2, 3, 1, 1}, bd[1] = {2}, sd[1] = {2};
    Onnx__TensorProto *w = ob_tensor("W", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 4, wd);
    ob_set_raw(w, W_VALUES, sizeof W_VALUES);
    Onnx__TensorProto *b = ob_tensor("B", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 1, bd);
    b->n_float_data = 2;
    b->float_data = ob_copy(B_VALUES, sizeof B_VALUES);
    Onnx__TensorProto *sh = ob_tensor("shape_c", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, sd);
    sh->n_int64_data = 2;
    sh->int64_data = ob_copy(SHAPE_VALUES, sizeof SHAPE_VALUES);
    Onnx__TensorProto *mx = ob_tensor("cmax", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 0, NULL);
    float six = 6.0f;
    mx->n_float_data = 1;
    mx->float_data = ob_copy(&six, sizeof six);
    g->initializer[g->n_initializer++] = w;
    g->initializer[g->n_initializer++] = b;
    g->initializer[g->n_initializer++] = sh;
    g->initializer[g->n_initializer++] = mx;

    int64_t xd[4] = {-1, 3, 4, 4}, yd[2] = {-1, 32};
    const char *xp[4] = {"N", NULL, NULL, NULL}, *yp[2] = {"N", NULL};
    g->input[g->n_input++] = ob_value_info("x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 4, xd, xp);
    g->input[g->n_input++] = ob_value_info("W", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 4, wd, NULL);
    g->output[g->n_output++] = ob_value_info("y", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, yd, yp);

    const char *conv_in[3] = {"x", "W", "B"}, *conv_out[1] = {"c"};
    Onnx__NodeProto *conv = ob_node("Conv", "conv1", 3, conv_in, 1, conv_out);
    int64_t k[2] = {1, 1}, st[2] = {1, 1}, pads[4] = {0, 0, 0, 0};
    ob_attr_ints(conv, "kernel_shape", 2, k);
    ob_attr_ints(conv, "strides", 2, st);
    ob_attr_ints(conv, "pads", 4, pads);
    ob_attr_int(conv, "group", 1);
    ob_attr_string(conv, "auto_pad", "NOTSET");
    Onnx__AttributeProto *fa = ob_attr(conv, "test_f", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT);
    fa->has_f = 1;
    fa->f = 0.125f;
    Onnx__AttributeProto *fs = ob_attr(conv, "test_fs", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS);
    float fv[2] = {0.5f, -2.0f};
    fs->n_floats = 2;
    fs->floats = ob_copy(fv, sizeof fv);
    Onnx__AttributeProto *ss = ob_attr(conv, "test_ss", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS);
    ss->n_strings = 2;
    ss->strings = ob_alloc(2 * sizeof(ProtobufCBinaryData));
    ss->strings[0].len = 1;
    ss->strings[0].data = (uint8_t *)ob_str("a");
    ss->strings[1].len = 2;
    ss->strings[1].data = (uint8_t *)ob_str("bc");
    g->node[g->n_node++] = conv;

    const char *relu_in[1] = {"c"}, *relu_out[1] = {"r"};
    g->node[g->n_node++] = ob_node("Relu", "", 1, relu_in, 1, relu_out);
    const char *clip_in[3] = {"r", "", "cmax"}, *clip_out[1] = {"cl"};
    g->node[g->n_node++] = ob_node("Clip", "clip", 3, clip_in, 1, clip_out);
    const char *rs_in[2] = {"cl", "shape_c"}, *rs_out[1] = {"y"};
    g->node[g->n_node++] = ob_node("Reshape", "reshape", 2, rs_in, 1, rs_out);
    return r;
}

/* ---- fixtures and helpers ---- */

static int setup(void **state)
{
    (void)state;
    ob_arena = arena_new();
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    arena_free(ob_arena);
    ob_arena = NULL;
    return 0;
}

static Diag quiet_diag(void)
{
    Diag d;
    memset(&d, 0, sizeof d);
    d.tool = "test";
    d.quiet = 1;
    return d;
}

static OnnxLoadOptions shapes(const char *spec)
{
    OnnxLoadOptions o;
    memset(&o, 0, sizeof o);
    Diag d = quiet_diag();
    assert_int_equal(onnx_parse_input_shapes(spec, &o, &d), 0);
    return o;
}

static Graph *load_model(const ObModel *m, const char *spec, Diag *d)
{
    size_t len;
    uint8_t *buf = ob_pack(m->m, &len);
    OnnxLoadOptions o = shapes(spec ? spec : "");
    return onnx_load_buffer(buf, len, "mem.onnx", &o, d);
}

/* Loading must fail with a message containing `reason`. */
static void expect_error(const ObModel *m, const char *spec, const char *reason)
{
    Diag d = quiet_diag();
    Graph *g = load_model(m, spec, &d);
    if (g || !strstr(d.last, reason))
        fail_msg("expected an error with '%s', got %s: '%s'", reason, g ? "a graph" : "NULL",
                 d.last);
    assert_int_equal(d.n_errors, 1);
}

static const Value *value_named(const Graph *g, const char *name)
{
    int id = graph_find_value(g, name);
    assert_true(id >= 0);
    return &g->values[id];
}

/* ---- happy paths ---- */

static void test_conv_model(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    Diag d = quiet_diag();
    Graph *g = load_model(&m, "x:[2,3,4,4]", &d);
    assert_non_null(g);
    assert_int_equal(d.n_errors, 0);
    assert_int_equal(g->opset, 13);
    assert_string_equal(g->name, "test_graph");

    /* runtime inputs: x only; W is an initializer although listed as input */
    assert_int_equal(g->n_inputs, 1);
    const Value *x = &g->values[g->inputs[0]];
    assert_string_equal(x->name, "x");
    assert_int_equal(x->dtype, DT_FLOAT32);
    assert_int_equal(x->shape.rank, 4);
    int64_t xd[4] = {2, 3, 4, 4};
    for (int i = 0; i < 4; i++)
        assert_int_equal(x->shape.dims[i], xd[i]);
    assert_null(x->dim_param[0]);
    assert_int_equal(x->is_input, 1);
    assert_false(value_is_const(x));

    const Value *w = value_named(g, "W");
    assert_true(value_is_const(w));
    assert_int_equal(w->is_input, 0);
    assert_int_equal(w->storage, STORE_CONST);
    assert_int_equal(w->shape.rank, 4);
    assert_int_equal(w->shape.dims[0], 2);
    assert_int_equal(w->shape.dims[1], 3);
    assert_memory_equal(w->data, W_VALUES, sizeof W_VALUES);
    const Value *b = value_named(g, "B");
    assert_float_equal(((float *)b->data)[0], 0.25f, 0);
    assert_float_equal(((float *)b->data)[1], -1.5f, 0);
    const Value *sh = value_named(g, "shape_c");
    assert_int_equal(sh->dtype, DT_INT64);
    assert_int_equal(((int64_t *)sh->data)[0], -1);
    assert_int_equal(((int64_t *)sh->data)[1], 32);
    const Value *mx = value_named(g, "cmax");
    assert_int_equal(mx->shape.rank, 0);
    assert_float_equal(*(float *)mx->data, 6.0f, 0);

    /* nodes, in order, with inputs and attributes */
    assert_int_equal(g->n_nodes, 4);
    const Node *conv = &g->nodes[0];
    assert_string_equal(conv->name, "conv1");
    assert_string_equal(conv->op_type, "Conv");
    assert_string_equal(conv->domain, "");
    assert_int_equal(conv->op, OP_CONV);
    assert_int_equal(conv->n_in, 3);
    assert_int_equal(conv->in[0], graph_find_value(g, "x"));
    assert_int_equal(conv->in[1], graph_find_value(g, "W"));
    assert_int_equal(conv->in[2], graph_find_value(g, "B"));
    int n = 0;
    const int64_t *pads = attr_ints(conv, "pads", &n);
    assert_non_null(pads);
    assert_int_equal(n, 4);
    assert_int_equal(pads[3], 0);
    const int64_t *ks = attr_ints(conv, "kernel_shape", &n);
    assert_int_equal(n, 2);
    assert_int_equal(ks[0], 1);
    assert_int_equal(attr_int(conv, "group", 0), 1);
    assert_string_equal(attr_string(conv, "auto_pad", ""), "NOTSET");
    assert_float_equal(attr_float(conv, "test_f", 0), 0.125f, 0);
    const Attr *fs = node_attr(conv, "test_fs");
    assert_int_equal(fs->kind, ATTR_FLOATS);
    assert_int_equal(fs->n, 2);
    assert_float_equal(fs->floats[1], -2.0f, 0);
    const Attr *ss = node_attr(conv, "test_ss");
    assert_int_equal(ss->kind, ATTR_STRINGS);
    assert_int_equal(ss->n, 2);
    assert_string_equal(ss->strings[1], "bc");

    assert_string_equal(g->nodes[1].name, "Relu_1"); /* invented */
    assert_int_equal(g->nodes[1].op, OP_RELU);
    assert_int_equal(g->nodes[1].in[0], conv->out[0]);
    const Node *clip = &g->nodes[2];
    assert_int_equal(clip->op, OP_CLIP);
    assert_int_equal(clip->n_in, 3);
    assert_int_equal(clip->in[1], -1); /* omitted optional input */
    assert_int_equal(clip->in[2], graph_find_value(g, "cmax"));
    assert_int_equal(g->nodes[3].op, OP_RESHAPE);

    assert_int_equal(g->n_outputs, 1);
    const Value *y = &g->values[g->outputs[0]];
    assert_string_equal(y->name, "y");
    assert_int_equal(y->is_output, 1);
    assert_int_equal(y->producer, 3);
    graph_free(g);
}

/* Every supported initializer type, from raw_data and from the typed fields. */
static void test_initializer_types(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    Onnx__GraphProto *g = m.g;
    int64_t two[1] = {2}, three[1] = {3};
    Onnx__TensorProto *t;

    int32_t i32[2] = {-7, 100000};
    t = ob_tensor("i32_raw", ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, two);
    ob_set_raw(t, i32, sizeof i32);
    g->initializer[g->n_initializer++] = t;
    int64_t i64[2] = {INT64_MIN, 5};
    t = ob_tensor("i64_raw", ONNX__TENSOR_PROTO__DATA_TYPE__INT64, 1, two);
    ob_set_raw(t, i64, sizeof i64);
    g->initializer[g->n_initializer++] = t;
    uint8_t u8[2] = {200, 1};
    t = ob_tensor("u8_raw", ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 1, two);
    ob_set_raw(t, u8, sizeof u8);
    g->initializer[g->n_initializer++] = t;
    uint16_t h[2] = {0x3c00, 0xc000}; /* 1.0, -2.0 */
    t = ob_tensor("f16_raw", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, 1, two);
    ob_set_raw(t, h, sizeof h);
    g->initializer[g->n_initializer++] = t;
    double f64[2] = {1.5, -2.25};
    t = ob_tensor("f64_raw", ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, 1, two);
    ob_set_raw(t, f64, sizeof f64);
    g->initializer[g->n_initializer++] = t;

    int32_t i8v[3] = {-3, 127, -128};
    t = ob_tensor("i8_typed", ONNX__TENSOR_PROTO__DATA_TYPE__INT8, 1, three);
    t->n_int32_data = 3;
    t->int32_data = ob_copy(i8v, sizeof i8v);
    g->initializer[g->n_initializer++] = t;
    int32_t u8v[2] = {255, 7};
    t = ob_tensor("u8_typed", ONNX__TENSOR_PROTO__DATA_TYPE__UINT8, 1, two);
    t->n_int32_data = 2;
    t->int32_data = ob_copy(u8v, sizeof u8v);
    g->initializer[g->n_initializer++] = t;
    int32_t bv[3] = {1, 0, 5};
    t = ob_tensor("bool_typed", ONNX__TENSOR_PROTO__DATA_TYPE__BOOL, 1, three);
    t->n_int32_data = 3;
    t->int32_data = ob_copy(bv, sizeof bv);
    g->initializer[g->n_initializer++] = t;
    int32_t hv[2] = {0x3c00, 0x3800}; /* 1.0, 0.5 */
    t = ob_tensor("f16_typed", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT16, 1, two);
    t->n_int32_data = 2;
    t->int32_data = ob_copy(hv, sizeof hv);
    g->initializer[g->n_initializer++] = t;
    int32_t i32v[2] = {-5, 6};
    t = ob_tensor("i32_typed", ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, two);
    t->n_int32_data = 2;
    t->int32_data = ob_copy(i32v, sizeof i32v);
    g->initializer[g->n_initializer++] = t;
    double dv[2] = {0.1, 1e300};
    t = ob_tensor("f64_typed", ONNX__TENSOR_PROTO__DATA_TYPE__DOUBLE, 1, two);
    t->n_double_data = 2;
    t->double_data = ob_copy(dv, sizeof dv);
    g->initializer[g->n_initializer++] = t;
    int64_t zd[2] = {0, 5};
    t = ob_tensor("empty", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 2, zd); /* no data needed */
    g->initializer[g->n_initializer++] = t;

    Diag d = quiet_diag();
    Graph *gr = load_model(&m, "x:[1,3,4,4]", &d);
    assert_non_null(gr);
    const Value *v;
    v = value_named(gr, "i32_raw");
    assert_int_equal(v->dtype, DT_INT32);
    assert_int_equal(((int32_t *)v->data)[0], -7);
    assert_int_equal(((int32_t *)v->data)[1], 100000);
    v = value_named(gr, "i64_raw");
    assert_true(((int64_t *)v->data)[0] == INT64_MIN);
    assert_int_equal(((int64_t *)v->data)[1], 5);
    v = value_named(gr, "u8_raw");
    assert_int_equal(v->dtype, DT_UINT8);
    assert_int_equal(((uint8_t *)v->data)[0], 200);
    v = value_named(gr, "f16_raw");
    assert_int_equal(v->dtype, DT_FLOAT16);
    assert_float_equal(tensor_get_f64(DT_FLOAT16, v->data, 1), -2.0, 0);
    v = value_named(gr, "f64_raw");
    assert_float_equal(((double *)v->data)[1], -2.25, 0);
    v = value_named(gr, "i8_typed");
    assert_int_equal(v->dtype, DT_INT8);
    assert_int_equal(((int8_t *)v->data)[0], -3);
    assert_int_equal(((int8_t *)v->data)[1], 127);
    assert_int_equal(((int8_t *)v->data)[2], -128);
    v = value_named(gr, "u8_typed");
    assert_int_equal(((uint8_t *)v->data)[0], 255);
    assert_int_equal(((uint8_t *)v->data)[1], 7);
    v = value_named(gr, "bool_typed");
    assert_int_equal(v->dtype, DT_BOOL);
    assert_int_equal(((uint8_t *)v->data)[0], 1);
    assert_int_equal(((uint8_t *)v->data)[1], 0);
    assert_int_equal(((uint8_t *)v->data)[2], 1);
    v = value_named(gr, "f16_typed");
    assert_float_equal(tensor_get_f64(DT_FLOAT16, v->data, 0), 1.0, 0);
    assert_float_equal(tensor_get_f64(DT_FLOAT16, v->data, 1), 0.5, 0);
    v = value_named(gr, "i32_typed");
    assert_int_equal(((int32_t *)v->data)[0], -5);
    v = value_named(gr, "f64_typed");
    assert_float_equal(((double *)v->data)[1], 1e300, 0);
    v = value_named(gr, "empty");
    assert_int_equal(v->shape.rank, 2);
    assert_int_equal(v->shape.dims[0], 0);
    assert_true(value_is_const(v));
    graph_free(gr);
}

/* Tensor and graph attributes, custom domains, omitted optional outputs,
 * ai.onnx as the default domain's other name, nameless attribute type. */
static void test_attr_kinds_and_domains(void **state)
{
    (void)state;
    ObModel m = conv_model(11);
    m.m->opset_import[0]->domain = ob_str("ai.onnx");
    Onnx__OperatorSetIdProto *ms = ob_alloc(sizeof *ms);
    onnx__operator_set_id_proto__init(ms);
    ms->domain = ob_str("com.microsoft");
    ms->has_version = 1;
    ms->version = 1;
    m.m->opset_import[m.m->n_opset_import++] = ms;
    Onnx__GraphProto *g = m.g;

    const char *k_out[1] = {"k"};
    Onnx__NodeProto *kc = ob_node("Constant", "const_k", 0, NULL, 1, k_out);
    Onnx__AttributeProto *va = ob_attr(kc, "value", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR);
    int64_t three[1] = {3};
    va->t = ob_tensor("", ONNX__TENSOR_PROTO__DATA_TYPE__INT32, 1, three);
    int32_t kv[3] = {7, -8, 9};
    va->t->n_int32_data = 3;
    va->t->int32_data = ob_copy(kv, sizeof kv);
    g->node[g->n_node++] = kc;

    const char *if_in[1] = {"k"}, *if_out[1] = {"z"};
    Onnx__NodeProto *ifn = ob_node("If", "if1", 1, if_in, 1, if_out);
    Onnx__AttributeProto *ga = ob_attr(ifn, "then_branch", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH);
    ga->g = ob_alloc(sizeof *ga->g);
    onnx__graph_proto__init(ga->g);
    /* a very old style attribute: no type field, only i set */
    Onnx__AttributeProto *old = ob_attr(ifn, "legacy", ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED);
    old->has_type = 0;
    old->has_i = 1;
    old->i = 42;
    g->node[g->n_node++] = ifn;

    const char *fc_in[1] = {"y"}, *fc_out[2] = {"q", ""};
    Onnx__NodeProto *fc = ob_node("FusedConv", NULL, 1, fc_in, 2, fc_out);
    fc->domain = ob_str("com.microsoft");
    g->node[g->n_node++] = fc;

    Diag d = quiet_diag();
    Graph *gr = load_model(&m, "x:[1,3,4,4]", &d);
    assert_non_null(gr);
    graph_free(gr);
    /* a bad attribute tensor names the node and the attribute */
    va->t->n_int32_data = 2;
    expect_error(&m, "x:[1,3,4,4]",
                 "node 'const_k' (Constant): attribute 'value' tensor: int32_data has 2 values, "
                 "expected 3");
    va->t->n_int32_data = 3;
    gr = load_model(&m, "x:[1,3,4,4]", &d);
    assert_non_null(gr);
    assert_int_equal(gr->opset, 11);
    assert_int_equal(gr->n_nodes, 7);
    const Node *k = &gr->nodes[4];
    assert_int_equal(k->op, OP_CONSTANT);
    assert_int_equal(k->n_in, 0);
    const Attr *a = node_attr(k, "value");
    assert_int_equal(a->kind, ATTR_TENSOR);
    assert_int_equal(a->t->dtype, DT_INT32);
    assert_int_equal(a->t->shape.rank, 1);
    assert_int_equal(a->t->shape.dims[0], 3);
    assert_int_equal(((int32_t *)a->t->data)[1], -8);
    const Node *ifn2 = &gr->nodes[5];
    assert_int_equal(node_attr(ifn2, "then_branch")->kind, ATTR_GRAPH);
    assert_non_null(node_attr(ifn2, "then_branch")->graph);
    assert_int_equal(node_attr(ifn2, "then_branch")->graph->n_nodes, 0);
    assert_int_equal(attr_int(ifn2, "legacy", 0), 42);
    assert_int_equal(ifn2->op, OP_IF);
    const Node *f = &gr->nodes[6];
    assert_string_equal(f->domain, "com.microsoft");
    assert_string_equal(f->name, "FusedConv_6");
    assert_int_equal(f->op, OP_UNKNOWN);
    assert_int_equal(f->n_out, 2);
    assert_int_equal(f->out[1], -1);
    assert_string_equal(gr->nodes[0].domain, "");
    graph_free(gr);
}

static void test_parse_input_shapes(void **state)
{
    (void)state;
    OnnxLoadOptions o;
    memset(&o, 0, sizeof o);
    Diag d = quiet_diag();
    assert_int_equal(onnx_parse_input_shapes("x:[1,3,224,224];  y:[ 2 , 5 ] input:0:[7] s:[]", &o, &d), 0);
    assert_int_equal(o.n_input_shapes, 4);
    assert_string_equal(o.input_shapes[0].name, "x");
    assert_int_equal(o.input_shapes[0].shape.rank, 4);
    assert_int_equal(o.input_shapes[0].shape.dims[3], 224);
    assert_string_equal(o.input_shapes[1].name, "y");
    assert_int_equal(o.input_shapes[1].shape.dims[1], 5);
    assert_string_equal(o.input_shapes[2].name, "input:0");
    assert_int_equal(o.input_shapes[2].shape.dims[0], 7);
    assert_string_equal(o.input_shapes[3].name, "s");
    assert_int_equal(o.input_shapes[3].shape.rank, 0);

    const char *bad[] = {"x", "x:1,2", "x:[1,-2]", "x:[1,2", "[1]", "x:[1]y", "x:[a]",
                         "x:[1,2,3,4,5,6,7,8,9]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&o, 0, sizeof o);
        d = quiet_diag();
        if (onnx_parse_input_shapes(bad[i], &o, &d) != -1)
            fail_msg("'%s' was accepted", bad[i]);
        assert_non_null(strstr(d.last, "--input-shapes"));
    }
    memset(&o, 0, sizeof o);
    assert_int_equal(onnx_parse_input_shapes("x:[1] x:[2]", &o, &d), -1);
    assert_non_null(strstr(d.last, "given twice"));
}

/* ---- refusals ---- */

static void test_not_a_model(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    size_t len;
    uint8_t *buf = ob_pack(m.m, &len);
    Diag d = quiet_diag();
    assert_null(onnx_load_buffer(buf, len / 2, "cut.onnx", NULL, &d));
    assert_non_null(strstr(d.last, "truncated"));
    assert_non_null(strstr(d.last, "cut.onnx"));

    d = quiet_diag();
    assert_null(onnx_load_buffer(buf, 0, "empty.onnx", NULL, &d));
    assert_non_null(strstr(d.last, "empty"));

    /* random bytes, several seeds: some fail to decode, some decode to junk */
    uint8_t junk[512];
    for (uint32_t seed = 1; seed <= 64; seed++) {
        uint32_t s = seed;
        size_t n = 16 + seed * 7;
        for (size_t i = 0; i < n; i++) {
            s = s * 1103515245u + 12345u;
            junk[i] = (uint8_t)(s >> 16);
        }
        d = quiet_diag();
        assert_null(onnx_load_buffer(junk, n, "junk.onnx", NULL, &d));
        assert_non_null(strstr(d.last, "not an ONNX model"));
    }

    /* decodes, but is no model: a TensorProto, and a model with no graph */
    const char *text = "\x08\x01"; /* field 1 varint 1: ir_version only */
    d = quiet_diag();
    assert_null(onnx_load_buffer(text, 2, "nograph.onnx", NULL, &d));
    assert_non_null(strstr(d.last, "no graph"));

    /* empty and missing files on disk */
    char dir[] = "/tmp/ctvm_fe_XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/empty.onnx", dir);
    assert_int_equal(ob_write_file(path, "", 0), 0);
    d = quiet_diag();
    assert_null(onnx_load(path, NULL, &d));
    assert_non_null(strstr(d.last, "empty"));
    unlink(path);
    snprintf(path, sizeof path, "%s/missing.onnx", dir);
    d = quiet_diag();
    assert_null(onnx_load(path, NULL, &d));
    assert_non_null(strstr(d.last, "cannot open"));
    rmdir(dir);
}

static void test_opset_refused(void **state)
{
    (void)state;
    ObModel m29 = conv_model(29);
    expect_error(&m29, "x:[1,3,4,4]", "opset 29 is not supported");
    ObModel m0 = conv_model(0);
    expect_error(&m0, "x:[1,3,4,4]", "opset 0 is not supported");
    ObModel none = conv_model(13);
    none.m->opset_import[0]->domain = ob_str("com.other");
    expect_error(&none, "x:[1,3,4,4]", "no opset for the default");
}

static void test_input_shape_errors(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    expect_error(&m, NULL, "input 'x' has symbolic dimension 'N'; give --input-shapes 'x:[...]'");
    expect_error(&m, "x:[1,3,4,4] nosuch:[1]", "'nosuch', which is not an input");
    expect_error(&m, "W:[1,3,4,4]", "'W', which is an initializer");
    expect_error(&m, "x:[1,3,4]", "rank 3");
    /* an unnamed unknown dimension */
    m.g->input[0]->type->tensor_type->shape->dim[0]->value_case =
        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE__NOT_SET;
    expect_error(&m, NULL, "unknown dimension 0");
    m.g->input[0]->type->tensor_type->shape = NULL;
    expect_error(&m, NULL, "input 'x' has no shape");
}

/* --input-shapes sizes symbolic, -1 (paddle2onnx) and 0 dims, and refuses to
   change a fixed positive one. */
static void test_input_shape_override_dims(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    expect_error(&m, "x:[2,4,4,4]", "fixes dim 1 to 3");
    Onnx__TensorShapeProto__Dimension *d0 = m.g->input[0]->type->tensor_type->shape->dim[0];
    d0->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d0->dim_value = -1;
    expect_error(&m, NULL, "unknown dimension 0");
    Diag d = quiet_diag();
    Graph *g = load_model(&m, "x:[1,3,4,4]", &d);
    assert_non_null(g);
    assert_int_equal(value_named(g, "x")->shape.dims[0], 1);
    graph_free(g);
    d0->dim_value = 0;
    g = load_model(&m, "x:[1,3,4,4]", &d);
    assert_non_null(g);
    assert_int_equal(value_named(g, "x")->shape.dims[0], 1);
    graph_free(g);
}

/* --bind: the input becomes a constant of the file's contents; type, shape
   and names are checked. */
static void test_bind(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    char dir[] = "/tmp/ctvm_bind_XXXXXX", path[256], bad[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/x.npy", dir);
    snprintf(bad, sizeof bad, "%s/bad.npy", dir);
    static float xs[48];
    for (int i = 0; i < 48; i++)
        xs[i] = (float)i;
    Diag d = quiet_diag();
    Tensor t = {NULL, DT_FLOAT32, {4, {1, 3, 4, 4}}, xs};
    assert_int_equal(tensor_write_npy(path, &t, &d), 0);
    Tensor tb = {NULL, DT_FLOAT32, {4, {1, 4, 3, 4}}, xs};
    assert_int_equal(tensor_write_npy(bad, &tb, &d), 0);
    size_t len;
    uint8_t *buf = ob_pack(m.m, &len);
    char spec[300];
    struct { const char *bind, *err; } cases[] = {
        {"x", NULL}, {"nosuch", "'nosuch', which is not an input"},
        {"W", "'W', which is an initializer"}, {"xbad", "declared"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        OnnxLoadOptions o;
        memset(&o, 0, sizeof o);
        const char *nm = strcmp(cases[k].bind, "xbad") ? cases[k].bind : "x";
        snprintf(spec, sizeof spec, "%s=%s", nm, strcmp(cases[k].bind, "xbad") ? path : bad);
        d = quiet_diag();
        assert_int_equal(onnx_parse_bind(spec, &o, &d), 0);
        Graph *g = onnx_load_buffer(buf, len, "mem.onnx", &o, &d);
        if (!cases[k].err) {
            assert_non_null(g);
            const Value *x = value_named(g, "x");
            assert_true(value_is_const(x));
            assert_false(x->is_input);
            assert_int_equal(g->n_inputs, 0);
            assert_true(((const float *)x->data)[47] == 47.0f);
            graph_free(g);
        } else {
            assert_null(g);
            if (!strstr(d.last, cases[k].err))
                fail_msg("bind %s: expected '%s', got '%s'", spec, cases[k].err, d.last);
        }
    }
    OnnxLoadOptions o;
    memset(&o, 0, sizeof o);
    d = quiet_diag();
    assert_int_equal(onnx_parse_bind("noequals", &o, &d), -1);
    assert_int_equal(onnx_parse_bind("x=a", &o, &d), 0);
    assert_int_equal(onnx_parse_bind("x=b", &o, &d), -1);
    unlink(path);
    unlink(bad);
    rmdir(dir);
}

static void test_graph_errors(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    m.g->node[1]->input[0] = ob_str("nope");
    expect_error(&m, "x:[1,3,4,4]", "node 'Relu_1' (Relu): input 'nope' is not defined");

    ObModel u = conv_model(13); /* Relu before the Conv that feeds it */
    Onnx__NodeProto *t = u.g->node[0];
    u.g->node[0] = u.g->node[1];
    u.g->node[1] = t;
    expect_error(&u, "x:[1,3,4,4]", "input 'c' is not defined before the node");

    ObModel o = conv_model(13);
    o.g->output[0]->name = ob_str("ghost");
    expect_error(&o, "x:[1,3,4,4]", "graph output 'ghost'");

    ObModel dup = conv_model(13);
    dup.g->node[1]->output[0] = ob_str("c");
    expect_error(&dup, "x:[1,3,4,4]", "output 'c' is already defined");

    ObModel nn = conv_model(13); /* a valid model, not "not an ONNX model" */
    nn.g->n_node = 0;
    expect_error(&nn, NULL, "the graph has no nodes: its outputs are its inputs or initializers");
}

/* The main graph's outputs are the compiled model's results: distinct, and
   computed (an output that is a runtime input made C that did not compile). */
static void test_graph_output_names(void **state)
{
    (void)state;
    ObModel dup = conv_model(13);
    dup.g->output[dup.g->n_output++] = dup.g->output[0];
    expect_error(&dup, "x:[1,3,4,4]", "graph output 'y' is listed twice");

    ObModel in = conv_model(13);
    int64_t xd[4] = {1, 3, 4, 4};
    in.g->output[in.g->n_output++] =
        ob_value_info("x", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 4, xd, NULL);
    expect_error(&in, "x:[1,3,4,4]", "graph output 'x' is the graph input 'x' itself");

    ObModel w = conv_model(13); /* an initializer as an output is a constant result */
    int64_t wd[4] = {2, 3, 1, 1};
    w.g->output[w.g->n_output++] =
        ob_value_info("W", ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT, 4, wd, NULL);
    Diag d = quiet_diag();
    Graph *g = load_model(&w, "x:[1,3,4,4]", &d);
    assert_non_null(g);
    assert_int_equal(g->n_outputs, 2);
    graph_free(g);
}

/* Declared shapes within ctvm's limits, checked at load and named. */
static void test_declared_shape_limits(void **state)
{
    (void)state;
    const int F = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    ObModel m = conv_model(13);
    int64_t huge[3] = {INT64_C(1) << 32, INT64_C(1) << 32, INT64_C(1) << 32};
    m.g->input[0] = ob_value_info("x", F, 3, huge, NULL);
    expect_error(&m, NULL, "input 'x' declares dimension 4294967296 at axis 0, above ctvm's "
                           "limit of 2147483647");

    ObModel neg = conv_model(13); /* -1 is "unknown" (paddle2onnx), -5 is no dimension */
    Onnx__TensorShapeProto__Dimension *d0 = neg.g->input[0]->type->tensor_type->shape->dim[0];
    d0->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
    d0->dim_value = -5;
    expect_error(&neg, "x:[1,3,4,4]", "input 'x' declares a negative dimension -5 at axis 0");

    ObModel bytes = conv_model(13);
    int64_t big[4] = {65536, 3, 65536, 65536};
    bytes.g->input[0] = ob_value_info("x", F, 4, big, NULL);
    expect_error(&bytes, NULL, "input 'x' [65536,3,65536,65536]: 844424930131968 float32 "
                               "elements are more than ctvm's limit of 1099511627776 bytes");
    ObModel ovf = conv_model(13);
    int64_t wide[4] = {INT32_MAX, 3, INT32_MAX, INT32_MAX};
    ovf.g->input[0] = ob_value_info("x", F, 4, wide, NULL);
    expect_error(&ovf, NULL, "the element count overflows");
    ObModel opt = conv_model(13); /* the same limits for --input-shapes */
    expect_error(&opt, "x:[4294967296,3,4,4]", "input 'x' [4294967296,3,4,4]: dimension "
                                               "4294967296 at axis 0 is above ctvm's limit");

    ObModel r9 = conv_model(13);
    int64_t nine[9] = {1, 1, 1, 1, 1, 1, 1, 1, 32};
    r9.g->output[0] = ob_value_info("y", F, 9, nine, NULL);
    expect_error(&r9, "x:[1,3,4,4]", "graph output 'y' has rank 9; ctvm's limit is 8");
    ObModel od = conv_model(13);
    int64_t yd[2] = {INT64_C(1) << 40, 32};
    od.g->output[0] = ob_value_info("y", F, 2, yd, NULL);
    expect_error(&od, "x:[1,3,4,4]", "graph output 'y' declares dimension 1099511627776");
    ObModel vi = conv_model(13);
    vi.g->value_info = ob_alloc(sizeof(void *));
    vi.g->value_info[vi.g->n_value_info++] = ob_value_info("c", F, 2, yd, NULL);
    expect_error(&vi, "x:[1,3,4,4]", "value_info 'c' declares dimension 1099511627776");
}

/* ---- raw protobuf bytes, for files protobuf-c's packer would not make ---- */

/* Written back to front: the data is buf[start..cap). */
typedef struct Wire {
    uint8_t *buf;
    size_t cap, start;
} Wire;

static Wire wire_new(size_t cap)
{
    Wire w = {ob_alloc(cap), cap, cap};
    return w;
}

static void wire_put(Wire *w, const void *p, size_t n)
{
    assert_true(n <= w->start);
    w->start -= n;
    memcpy(w->buf + w->start, p, n);
}

static void wire_varint(Wire *w, uint64_t v)
{
    uint8_t b[10];
    int n = 0;
    do {
        b[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    wire_put(w, b, (size_t)n);
}

/* Everything written so far becomes the body of length-delimited `field`. */
static void wire_wrap(Wire *w, unsigned field)
{
    wire_varint(w, w->cap - w->start);
    wire_varint(w, field << 3 | 2);
}

/* Wraps the GraphProto body written so far into a ModelProto (ir_version 8)
   and loads it; the load must fail with `reason`. */
static void expect_wire_error(Wire *w, const char *reason)
{
    wire_wrap(w, 7);            /* ModelProto.graph */
    wire_put(w, "\x08\x08", 2); /* ModelProto.ir_version = 8 */
    Diag d = quiet_diag();
    Graph *g = onnx_load_buffer(w->buf + w->start, w->cap - w->start, "wire.onnx", NULL, &d);
    if (g || !strstr(d.last, reason))
        fail_msg("expected an error with '%s', got '%s'", reason, d.last);
}

/* A protobuf nested 30000 deep overflowed the stack inside protobuf-c
   (SIGSEGV); the nesting, entries per repeated field and message count are
   now checked on the wire before unpacking. */
static void test_protobuf_limits(void **state)
{
    (void)state;
    Wire deep = wire_new(1 << 18);
    for (int i = 0; i < 10000; i++) { /* If-like: graph > node > attribute > graph ... */
        wire_wrap(&deep, 6);         /* AttributeProto.g */
        wire_wrap(&deep, 5);         /* NodeProto.attribute */
        wire_wrap(&deep, 1);         /* GraphProto.node */
    }
    expect_wire_error(&deep, "refused before decoding: protobuf messages are nested more "
                             "than 100 deep (ctvm's limit");

    enum { MANY = (1 << 20) + 1 }; /* empty nodes, two bytes each */
    Wire nodes = wire_new(2 * (size_t)MANY + 64);
    for (int i = 0; i < MANY; i++)
        wire_put(&nodes, "\x0a\x00", 2);
    expect_wire_error(&nodes, "field 'node' of a onnx.GraphProto has more than 1048576 entries "
                              "(ctvm's limit)");

    enum { NODES = 950000 }; /* 9.5 million messages: nodes of 9 empty attributes */
    Wire msgs = wire_new((size_t)NODES * 20 + 64);
    for (int i = 0; i < NODES; i++)
        wire_put(&msgs, "\x0a\x12\x2a\x00\x2a\x00\x2a\x00\x2a\x00\x2a\x00\x2a\x00\x2a\x00"
                        "\x2a\x00\x2a\x00", 20);
    expect_wire_error(&msgs, "the file holds more than 8388608 protobuf messages (ctvm's limit)");

    /* a .pb TensorProto: entries of its repeated fields are bounded too */
    char dir[] = "/tmp/ctvm_pb_XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.pb", dir);
    Wire t = wire_new(2 * (size_t)MANY + 64);
    for (int i = 0; i < MANY; i++)
        wire_put(&t, "\x6a\x00", 2); /* TensorProto.external_data, field 13 */
    assert_int_equal(ob_write_file(path, t.buf + t.start, t.cap - t.start), 0);
    Arena *a = arena_new();
    Tensor *ts;
    int nt;
    Diag d = quiet_diag();
    assert_int_equal(tensor_read_file(path, a, &ts, &nt, &d), -1);
    assert_non_null(strstr(d.last, "field 'external_data' of a onnx.TensorProto has more than"));
    arena_free(a);
    unlink(path);
    rmdir(dir);
}

static void test_tensor_errors(void **state)
{
    (void)state;
    ObModel m = conv_model(13);
    m.g->initializer[0]->raw_data.len = 8;
    expect_error(&m, "x:[1,3,4,4]", "initializer 'W': raw_data has 8 bytes, expected 24");

    ObModel f = conv_model(13);
    f.g->initializer[1]->n_float_data = 1;
    expect_error(&f, "x:[1,3,4,4]", "float_data has 1 values, expected 2");

    ObModel neg = conv_model(13);
    neg.g->initializer[0]->dims[1] = -3;
    expect_error(&neg, "x:[1,3,4,4]", "negative dimension");

    ObModel big = conv_model(13); /* every dim within the limit, the product not */
    int64_t huge[4] = {INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX};
    big.g->initializer[0]->dims = ob_copy(huge, sizeof huge);
    expect_error(&big, "x:[1,3,4,4]", "initializer 'W': element count overflows");

    ObModel dim = conv_model(13);
    int64_t wide[4] = {INT64_C(1) << 40, 1, 1, 1};
    dim.g->initializer[0]->dims = ob_copy(wide, sizeof wide);
    expect_error(&dim, "x:[1,3,4,4]", "initializer 'W': dimension 1099511627776 at axis 0 is "
                                      "above ctvm's limit of 2147483647");

    ObModel claim = conv_model(13); /* huge dims, 24 bytes of data: refused, not allocated */
    int64_t claimed[4] = {INT64_C(1) << 28, INT64_C(1) << 28, 1, 1};
    claim.g->initializer[0]->dims = ob_copy(claimed, sizeof claimed);
    expect_error(&claim, "x:[1,3,4,4]", "raw_data has 24 bytes, expected 288230376151711744");

    ObModel st = conv_model(13);
    st.g->initializer[1]->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__STRING;
    expect_error(&st, "x:[1,3,4,4]", "unsupported data type STRING");

    ObModel wrong = conv_model(13); /* float tensor with int64 values */
    wrong.g->initializer[2]->data_type = ONNX__TENSOR_PROTO__DATA_TYPE__FLOAT;
    expect_error(&wrong, "x:[1,3,4,4]", "must keep its values in float_data, not int64_data");

    ObModel none = conv_model(13);
    none.g->initializer[0]->has_raw_data = 0;
    expect_error(&none, "x:[1,3,4,4]", "'W': has no data");

    ObModel ext = conv_model(13); /* external data but loaded from memory */
    ob_set_external(ext.g->initializer[0], "w.bin", NULL, NULL);
    ext.g->initializer[0]->has_raw_data = 0;
    Diag d = quiet_diag();
    size_t len;
    uint8_t *buf = ob_pack(ext.m, &len);
    OnnxLoadOptions o = shapes("x:[1,3,4,4]");
    assert_null(onnx_load_buffer(buf, len, NULL, &o, &d));
    assert_non_null(strstr(d.last, "loaded from memory"));
}

/* ---- external data ---- */

static char *write_ext_model(const char *dir, const char *loc, const char *off, const char *len)
{
    ObModel m = conv_model(13);
    Onnx__TensorProto *w = m.g->initializer[0];
    w->has_raw_data = 0;
    ob_set_external(w, loc, off, len);
    size_t n;
    uint8_t *buf = ob_pack(m.m, &n);
    char *path = ob_alloc(512);
    snprintf(path, 512, "%s/model.onnx", dir);
    assert_int_equal(ob_write_file(path, buf, n), 0);
    return path;
}

static void expect_ext_error(const char *dir, const char *loc, const char *off, const char *len,
                             const char *reason)
{
    char *path = write_ext_model(dir, loc, off, len);
    Diag d = quiet_diag();
    OnnxLoadOptions o = shapes("x:[1,3,4,4]");
    Graph *g = onnx_load(path, &o, &d);
    if (g || !strstr(d.last, reason))
        fail_msg("location '%s': expected '%s', got '%s'", loc, reason, d.last);
    unlink(path);
}

static void test_external_data(void **state)
{
    (void)state;
    char dir[] = "/tmp/ctvm_fe_XXXXXX", other[] = "/tmp/ctvm_fe_XXXXXX";
    assert_non_null(mkdtemp(dir));
    assert_non_null(mkdtemp(other));
    char p[512];
    /* weights at offset 16 of data/w.bin, after 16 bytes of something else */
    snprintf(p, sizeof p, "%s/data", dir);
    assert_int_equal(mkdir(p, 0700), 0);
    unsigned char blob[16 + sizeof W_VALUES];
    memset(blob, 0xab, 16);
    memcpy(blob + 16, W_VALUES, sizeof W_VALUES);
    snprintf(p, sizeof p, "%s/data/w.bin", dir);
    assert_int_equal(ob_write_file(p, blob, sizeof blob), 0);

    char *path = write_ext_model(dir, "data/w.bin", "16", "24");
    Diag d = quiet_diag();
    OnnxLoadOptions o = shapes("x:[1,3,4,4]");
    Graph *g = onnx_load(path, &o, &d);
    assert_non_null(g);
    const Value *w = value_named(g, "W");
    assert_memory_equal(w->data, W_VALUES, sizeof W_VALUES);
    assert_string_equal(g->path, path);
    graph_free(g);
    unlink(path);

    /* length may be left out: the rest of the file */
    path = write_ext_model(dir, "data/w.bin", "16", NULL);
    d = quiet_diag();
    g = onnx_load(path, &o, &d);
    assert_non_null(g);
    assert_memory_equal(value_named(g, "W")->data, W_VALUES, sizeof W_VALUES);
    graph_free(g);
    unlink(path);

    expect_ext_error(dir, "../w.bin", NULL, NULL, "uses '..' and would leave the model's folder");
    expect_ext_error(dir, "data/../../x", NULL, NULL, "'..'");
    expect_ext_error(dir, "/etc/passwd", NULL, NULL, "absolute path");
    expect_ext_error(dir, "data/w.bin", "16", "40", "goes past the end");
    expect_ext_error(dir, "data/w.bin", "48", NULL, "goes past the end");
    expect_ext_error(dir, "data/w.bin", "0", NULL, "holds 40 bytes for it, expected 24");
    expect_ext_error(dir, "data/w.bin", "-1", NULL, "bad offset");
    expect_ext_error(dir, "nothere.bin", NULL, NULL, "cannot open");

    /* a symlink inside the folder that points outside it */
    char target[512], link[512];
    snprintf(target, sizeof target, "%s/secret.bin", other);
    assert_int_equal(ob_write_file(target, W_VALUES, sizeof W_VALUES), 0);
    snprintf(link, sizeof link, "%s/link.bin", dir);
    assert_int_equal(symlink(target, link), 0);
    expect_ext_error(dir, "link.bin", NULL, NULL, "outside the model's folder");

    unlink(link);
    unlink(target);
    unlink(p);
    snprintf(p, sizeof p, "%s/data", dir);
    rmdir(p);
    rmdir(dir);
    rmdir(other);
}

/* A FIFO (or any non-regular file) as the model, a tensor file or external
   data is refused without opening it for blocking reads, which waited for a
   writer forever. alarm: a regression kills the test instead of hanging it. */
static void test_fifo_refused(void **state)
{
    (void)state;
    char dir[] = "/tmp/ctvm_fifo_XXXXXX", p[512];
    assert_non_null(mkdtemp(dir));
    alarm(20);
    const char *names[] = {"m.onnx", "t.npy", "t.npz", "t.pb", "w.bin"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        assert_int_equal(mkfifo(p, 0600), 0);
    }
    Diag d = quiet_diag();
    snprintf(p, sizeof p, "%s/m.onnx", dir);
    assert_null(onnx_load(p, NULL, &d));
    assert_non_null(strstr(d.last, "m.onnx' is not a regular file"));
    Arena *a = arena_new();
    for (size_t i = 1; i < 4; i++) {
        Tensor *ts;
        int nt;
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        d = quiet_diag();
        assert_int_equal(tensor_read_file(p, a, &ts, &nt, &d), -1);
        if (!strstr(d.last, "is not a regular file"))
            fail_msg("%s: got '%s'", names[i], d.last);
    }
    arena_free(a);
    expect_ext_error(dir, "w.bin", NULL, NULL, "w.bin' is not a regular file");
    alarm(0);
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    rmdir(dir);
}

/* ---- a real model from the ONNX backend tests ---- */

#define CONV_CASE "/usr/share/libonnx-testdata/data/node/test_conv_with_strides_padding"

static void test_backend_conv(void **state)
{
    (void)state;
    if (access(CONV_CASE "/model.onnx", R_OK) != 0)
        skip();
    Diag d = quiet_diag();
    Graph *g = onnx_load(CONV_CASE "/model.onnx", NULL, &d);
    assert_non_null(g);
    assert_int_equal(g->opset, 11);
    assert_int_equal(g->n_nodes, 1);
    const Node *n = &g->nodes[0];
    assert_int_equal(n->op, OP_CONV);
    int k = 0;
    const int64_t *strides = attr_ints(n, "strides", &k);
    assert_int_equal(k, 2);
    assert_int_equal(strides[0], 2);
    const int64_t *pads = attr_ints(n, "pads", &k);
    assert_int_equal(k, 4);
    assert_int_equal(pads[0], 1);
    /* both x and W are runtime inputs in this test case */
    assert_int_equal(g->n_inputs, 2);
    const Value *x = &g->values[g->inputs[0]];
    assert_string_equal(x->name, "x");
    int64_t xd[4] = {1, 1, 7, 5};
    for (int i = 0; i < 4; i++)
        assert_int_equal(x->shape.dims[i], xd[i]);
    assert_int_equal(g->values[g->inputs[1]].shape.dims[2], 3);
    assert_int_equal(g->n_outputs, 1);
    assert_string_equal(g->values[g->outputs[0]].name, "y");
    graph_free(g);

    Arena *a = arena_new();
    Tensor *ts;
    int nt;
    assert_int_equal(tensor_read_file(CONV_CASE "/test_data_set_0/input_0.pb", a, &ts, &nt, &d), 0);
    assert_int_equal(nt, 1);
    assert_string_equal(ts[0].name, "x");
    assert_int_equal(ts[0].dtype, DT_FLOAT32);
    assert_int_equal(ts[0].shape.rank, 4);
    assert_int_equal(ts[0].shape.dims[2], 7);
    const float *xv = ts[0].data;
    for (int i = 0; i < 35; i++)
        assert_float_equal(xv[i], (float)i, 0);
    assert_int_equal(tensor_read_file(CONV_CASE "/test_data_set_0/output_0.pb", a, &ts, &nt, &d), 0);
    assert_string_equal(ts[0].name, "y");
    assert_int_equal(ts[0].shape.dims[2], 4);
    assert_int_equal(ts[0].shape.dims[3], 3);
    const float *yv = ts[0].data;
    const float first[4] = {12, 27, 24, 63};
    for (int i = 0; i < 4; i++)
        assert_float_equal(yv[i], first[i], 0);
    assert_float_equal(yv[11], 124.0f, 0);
    double sum = 0;
    for (int i = 0; i < 12; i++)
        sum += yv[i];
    assert_float_equal(sum, 1190.0, 0);
    arena_free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_conv_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_initializer_types, setup, teardown),
        cmocka_unit_test_setup_teardown(test_attr_kinds_and_domains, setup, teardown),
        cmocka_unit_test_setup_teardown(test_parse_input_shapes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_shape_override_dims, setup, teardown),
        cmocka_unit_test_setup_teardown(test_bind, setup, teardown),
        cmocka_unit_test_setup_teardown(test_not_a_model, setup, teardown),
        cmocka_unit_test_setup_teardown(test_opset_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_input_shape_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_graph_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_graph_output_names, setup, teardown),
        cmocka_unit_test_setup_teardown(test_declared_shape_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_protobuf_limits, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tensor_errors, setup, teardown),
        cmocka_unit_test_setup_teardown(test_external_data, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fifo_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_backend_conv, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
