/* onnx_limits.h - the loader's limits on what a model file may declare.
 *
 * A model file comes from anywhere; before the loader trusts a count or a
 * size it checks it against these, and refuses the file with an error naming
 * the limit. Every value is far above what real models use, so only damaged
 * or hostile files reach them. */
#ifndef CTVM_FRONTEND_ONNX_LIMITS_H
#define CTVM_FRONTEND_ONNX_LIMITS_H

#include <stdint.h>

/* Protobuf messages nested inside each other (checked on the wire, before
 * protobuf-c unpacks recursively). A model nests ModelProto > GraphProto >
 * NodeProto > AttributeProto > GraphProto ... three levels per subgraph, and
 * ValueInfo > TypeProto > Tensor > Shape > Dimension under each graph: 16
 * subgraph levels need about 55. Protobuf's own default limit is 100. */
#define ONNX_MAX_PROTO_DEPTH 100
/* Entries of one repeated message or string field of one message: nodes,
 * initializers, inputs, outputs, value_info of a graph, attributes, inputs
 * and outputs of a node, dims of a shape... */
#define ONNX_MAX_REPEATED (1 << 20)
/* Protobuf messages in the whole file (each unpacks to a malloc'd struct
 * many times its few bytes on the wire). */
#define ONNX_MAX_MESSAGES (1 << 23)
/* If/Loop/Scan bodies nested inside each other. */
#define ONNX_MAX_SUBGRAPH_DEPTH 16
/* One dimension of a declared shape or a tensor. */
#define ONNX_MAX_DIM INT64_C(2147483647)
/* Bytes of one tensor (an input, an initializer, a tensor attribute): 1 TiB. */
#define ONNX_MAX_TENSOR_BYTES (INT64_C(1) << 40)

#endif
