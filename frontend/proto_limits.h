/* proto_limits.h - a bounded check of protobuf wire data before protobuf-c
 * unpacks it.
 *
 * protobuf_c_message_unpack recurses once per nested message and allocates a
 * struct for every message, so a small hostile file can overflow the stack
 * (messages nested thousands deep) or ask for gigabytes (millions of empty
 * messages). proto_check_limits walks the wire format, descending only into
 * fields that the message's protobuf-c descriptor says are messages (its own
 * recursion stops at the depth limit), and checks nesting depth, entries per repeated field and the
 * total message count against frontend/onnx_limits.h. It decodes nothing
 * else: values are skipped, not read. */
#ifndef CTVM_FRONTEND_PROTO_LIMITS_H
#define CTVM_FRONTEND_PROTO_LIMITS_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

enum {
    PROTO_OK = 0,
    PROTO_MALFORMED = -1, /* not valid wire data: protobuf-c would fail too */
    PROTO_OVER_LIMIT = -2 /* valid so far, but beyond a limit: reason in why */
};

/* Checks buf (len bytes) holding a message of type desc. PROTO_OK, or
 * PROTO_MALFORMED, or PROTO_OVER_LIMIT with the reason written to why. */
int proto_check_limits(const uint8_t *buf, size_t len, const ProtobufCMessageDescriptor *desc,
                       char *why, size_t cap);

#endif
