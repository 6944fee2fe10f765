/* onnx_load.h - the frontend's entry point: an ONNX model file into a Graph.
 *
 * The loader decodes the ModelProto with protobuf-c, checks it (a
 * default-domain opset from 1 to the newest ctvm knows, every operator's
 * version in force at that opset implemented, topological node order,
 * tensor sizes), turns
 * initializers into constant Values and the other graph inputs into runtime
 * inputs with static shapes (after --input-shapes overrides). On any failure
 * it reports one error through the Diag and returns NULL; bad input never
 * crashes it. The returned graph is released with graph_free(). */
#ifndef CTVM_FRONTEND_ONNX_LOAD_H
#define CTVM_FRONTEND_ONNX_LOAD_H

#include <stddef.h>

#include "ir/diag.h"
#include "ir/graph.h"
#include "ir/shape.h"

#define ONNX_MIN_OPSET 1
#define ONNX_MAX_INPUT_SHAPES 32
#define ONNX_MAX_INPUT_NAME 256
#define ONNX_MAX_BINDS 32

/* One --input-shapes entry: the input's name and the static shape to use. */
typedef struct OnnxInputShape {
    char name[ONNX_MAX_INPUT_NAME];
    Shape shape;
} OnnxInputShape;

/* One --bind entry: graph input `name` becomes a constant holding the tensor
 * read from `path` (.npy, .npz or ONNX TensorProto .pb; frontend/tensor_io.h). */
typedef struct OnnxBind {
    char name[ONNX_MAX_INPUT_NAME];
    const char *path; /* not copied: must outlive the load (argv) */
} OnnxBind;

/* Zero-initialise; fill input_shapes with onnx_parse_input_shapes() and
 * binds with onnx_parse_bind(). */
typedef struct OnnxLoadOptions {
    int n_input_shapes;
    OnnxInputShape input_shapes[ONNX_MAX_INPUT_SHAPES];
    int n_binds;
    OnnxBind binds[ONNX_MAX_BINDS];
} OnnxLoadOptions;

/* Parses the --input-shapes form "x:[1,3,224,224] y:[1,10]" (entries
 * separated by spaces or ';'; the name is everything before the ':' that
 * precedes '[', so "input:0:[1,3]" names "input:0"; "x:[]" is a scalar) and
 * appends the entries to opt. 0 ok, -1 after a diag_error. */
int onnx_parse_input_shapes(const char *spec, OnnxLoadOptions *opt, Diag *d);

/* Parses one --bind "NAME=FILE" (split at the first '=') and appends it to
 * opt. The loader reads FILE, checks its element type and shape against the
 * input's declaration (unknown, symbolic, -1 and 0 dims take any size) and
 * makes the input a constant before shape inference, so inputs that decide
 * shapes (a Reshape shape, Slice starts, TopK k, Resize sizes) can be graph
 * inputs. The compiled model then no longer has that input.
 * 0 ok, -1 after a diag_error. */
int onnx_parse_bind(const char *spec, OnnxLoadOptions *opt, Diag *d);

/* opt may be NULL (no overrides). */
Graph *onnx_load(const char *path, const OnnxLoadOptions *opt, Diag *d);
/* The same from memory; path_for_diag names the model in messages and its
 * folder is where external data is looked for (NULL: external data refused). */
Graph *onnx_load_buffer(const void *buf, size_t len, const char *path_for_diag,
                        const OnnxLoadOptions *opt, Diag *d);

#endif
