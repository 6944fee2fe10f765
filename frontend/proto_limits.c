/* proto_limits.c - nesting, repeated-field and message-count limits checked
 * on protobuf wire data before unpacking (see proto_limits.h).
 *
 * Wire format: a message is a run of fields, each a varint tag (field number
 * << 3 | wire type) and a value: varint (0), 8 bytes (1), a varint length and
 * that many bytes (2), 4 bytes (5). Group wire types (3, 4) are refused by
 * protobuf-c and so are malformed here too. */
#include "proto_limits.h"

#include <stdio.h>

#include "onnx_limits.h"

typedef struct Walk {
    size_t messages; /* messages seen so far, the top one included */
    char *why;
    size_t cap;
} Walk;

/* Reads a varint at *p (< end); advances *p. 0 ok, -1 truncated or too long. */
static int read_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
    uint64_t r = 0;
    for (int shift = 0; shift < 64; shift += 7) { /* at most 10 bytes */
        if (*p >= end)
            return -1;
        uint8_t b = *(*p)++;
        r |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = r;
            return 0;
        }
    }
    return -1;
}

/* Entries per field are counted in a small array indexed like desc->fields. */
enum { MAX_COUNTED_FIELDS = 64 };

static int walk_message(Walk *w, const uint8_t *p, const uint8_t *end,
                        const ProtobufCMessageDescriptor *desc, int depth)
{
    if (depth > ONNX_MAX_PROTO_DEPTH) {
        snprintf(w->why, w->cap,
                 "protobuf messages are nested more than %d deep (ctvm's limit; a model nests "
                 "3 levels per subgraph), inside %s", ONNX_MAX_PROTO_DEPTH, desc->name);
        return PROTO_OVER_LIMIT;
    }
    if (++w->messages > ONNX_MAX_MESSAGES) {
        snprintf(w->why, w->cap, "the file holds more than %d protobuf messages (ctvm's limit)",
                 ONNX_MAX_MESSAGES);
        return PROTO_OVER_LIMIT;
    }
    uint32_t counts[MAX_COUNTED_FIELDS] = {0};
    while (p < end) {
        uint64_t tag, n;
        if (read_varint(&p, end, &tag))
            return PROTO_MALFORMED;
        unsigned wire = (unsigned)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            tag >> 3 <= UINT32_MAX ? protobuf_c_message_descriptor_get_field(desc, (unsigned)(tag >> 3))
                                   : NULL;
        switch (wire) {
        case PROTOBUF_C_WIRE_TYPE_VARINT:
            if (read_varint(&p, end, &n))
                return PROTO_MALFORMED;
            continue;
        case PROTOBUF_C_WIRE_TYPE_64BIT:
        case PROTOBUF_C_WIRE_TYPE_32BIT: {
            size_t k = wire == PROTOBUF_C_WIRE_TYPE_64BIT ? 8 : 4;
            if ((size_t)(end - p) < k)
                return PROTO_MALFORMED;
            p += k;
            continue;
        }
        case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
            if (read_varint(&p, end, &n) || n > (uint64_t)(end - p))
                return PROTO_MALFORMED;
            break;
        default:
            return PROTO_MALFORMED;
        }
        const uint8_t *body = p;
        p += n;
        if (!f)
            continue; /* unknown field: kept as bytes by protobuf-c */
        int is_msg = f->type == PROTOBUF_C_TYPE_MESSAGE;
        int is_str = f->type == PROTOBUF_C_TYPE_STRING || f->type == PROTOBUF_C_TYPE_BYTES;
        size_t idx = (size_t)(f - desc->fields);
        if (f->label == PROTOBUF_C_LABEL_REPEATED && (is_msg || is_str) &&
            idx < MAX_COUNTED_FIELDS && ++counts[idx] > ONNX_MAX_REPEATED) {
            snprintf(w->why, w->cap, "field '%s' of a %s has more than %d entries (ctvm's limit)",
                     f->name, desc->name, ONNX_MAX_REPEATED);
            return PROTO_OVER_LIMIT;
        }
        if (is_msg) {
            int rc = walk_message(w, body, body + n, f->descriptor, depth + 1);
            if (rc)
                return rc;
        }
    }
    return PROTO_OK;
}

int proto_check_limits(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                       char *why, size_t cap)
{
    Walk w = {0, why, cap};
    if (cap)
        why[0] = 0;
    return walk_message(&w, buf, buf + len, desc, 1);
}
