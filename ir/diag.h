/* diag.h - diagnostics that name the tool, the file, the node and the reason.
 *
 * Format: "ctvm-emit: model.onnx: node 'Conv_12' (Conv): <reason>".
 * Every stage reports errors through a Diag and returns non-zero; the CLI
 * decides the exit status. The last message is kept for tests. */
#ifndef CTVM_IR_DIAG_H
#define CTVM_IR_DIAG_H

typedef struct Diag {
    const char *tool;  /* "ctvm-emit" */
    const char *file;  /* model path */
    int quiet;         /* 1: keep messages in last[] only (tests) */
    int n_errors;
    char last[1024];   /* the last message, formatted as printed */
} Diag;

struct Graph;
/* Error about the whole file (node_id < 0) or a node; always returns -1. */
int diag_error(Diag *d, const struct Graph *g, int node_id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
