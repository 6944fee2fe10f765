/* onnx_attr.c - ONNX AttributeProto to ctvm Attr.
 *
 * Scalars, strings, lists and tensors are decoded; a graph (an If branch,
 * a Loop or Scan body) becomes a subgraph (ATTR_GRAPH); sparse tensors, type
 * protos and lists of graphs or tensors are kept as ATTR_OTHER so a later
 * stage can name them in its error. Strings are copied with their
 * length and NUL-terminated. Very old models leave AttributeProto.type unset;
 * then the kind is inferred from the field that is present. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "onnx_internal.h"
#include "onnx_tensor.h"

typedef Onnx__AttributeProto__AttributeType AttrType;

static AttrType infer_type(const Onnx__AttributeProto *ap)
{
    if (ap->has_type && ap->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED)
        return ap->type;
    if (ap->has_f)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT;
    if (ap->has_i)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT;
    if (ap->has_s)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING;
    if (ap->t)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR;
    if (ap->g)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH;
    if (ap->n_floats)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS;
    if (ap->n_ints)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS;
    if (ap->n_strings)
        return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS;
    return ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__UNDEFINED;
}

static const char *copy_bytes(Arena *a, const ProtobufCBinaryData *b)
{
    char *s = arena_alloc(a, b->len + 1);
    if (b->len)
        memcpy(s, b->data, b->len);
    return s;
}

static int decode_one(OnnxLoadCtx *c, int node_id, const Onnx__AttributeProto *ap, Attr *at)
{
    Arena *a = c->g->arena;
    at->name = arena_strdup(a, ap->name ? ap->name : "");
    if (ap->n_floats > INT32_MAX || ap->n_ints > INT32_MAX || ap->n_strings > INT32_MAX)
        return diag_error(c->d, c->g, node_id, "attribute '%s' has more than %d values",
                          at->name, INT32_MAX); /* Attr.n is an int */
    switch (infer_type(ap)) {
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
        at->kind = ATTR_FLOAT;
        at->f = ap->f;
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
        at->kind = ATTR_INT;
        at->i = ap->i;
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
        at->kind = ATTR_STRING;
        at->s = copy_bytes(a, &ap->s);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR: {
        if (!ap->t)
            return diag_error(c->d, c->g, node_id, "attribute '%s' has no tensor", at->name);
        char what[300];
        snprintf(what, sizeof what, "attribute '%s' tensor", at->name);
        OnnxTensorCtx tc = {c->g, node_id, what, c->base_dir};
        at->kind = ATTR_TENSOR;
        at->t = arena_alloc(a, sizeof(Tensor));
        if (onnx_tensor_decode(ap->t, &tc, a, at->t, c->d))
            return -1;
        break;
    }
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
        at->kind = ATTR_FLOATS;
        at->n = (int)ap->n_floats;
        at->floats = arena_array(a, ap->n_floats ? ap->n_floats : 1, sizeof(float));
        if (ap->n_floats)
            memcpy(at->floats, ap->floats, ap->n_floats * sizeof(float));
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
        at->kind = ATTR_INTS;
        at->n = (int)ap->n_ints;
        at->ints = arena_array(a, ap->n_ints ? ap->n_ints : 1, sizeof(int64_t));
        if (ap->n_ints)
            memcpy(at->ints, ap->ints, ap->n_ints * sizeof(int64_t));
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRINGS:
        at->kind = ATTR_STRINGS;
        at->n = (int)ap->n_strings;
        at->strings = arena_array(a, ap->n_strings ? ap->n_strings : 1, sizeof(char *));
        for (size_t k = 0; k < ap->n_strings; k++)
            at->strings[k] = copy_bytes(a, &ap->strings[k]);
        break;
    case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__GRAPH:
        if (!ap->g)
            return diag_error(c->d, c->g, node_id, "attribute '%s' has no graph", at->name);
        at->kind = ATTR_GRAPH;
        if (onnx_subgraph_load(c, node_id, ap->g, &at->graph))
            return -1;
        break;
    default: /* graph lists, sparse tensors, type protos, tensor lists, unset */
        at->kind = ATTR_OTHER;
        break;
    }
    return 0;
}

int onnx_attrs_decode(OnnxLoadCtx *c, int node_id, const Onnx__NodeProto *np)
{
    if (np->n_attribute > (size_t)1 << 20)
        return diag_error(c->d, c->g, node_id, "too many attributes");
    int n = (int)np->n_attribute;
    Attr *attrs = arena_array(c->g->arena, (size_t)(n ? n : 1), sizeof(Attr));
    for (int k = 0; k < n; k++)
        if (decode_one(c, node_id, np->attribute[k], &attrs[k]))
            return -1;
    Node *node = &c->g->nodes[node_id];
    node->attrs = attrs;
    node->n_attrs = n;
    return 0;
}
