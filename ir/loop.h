/* loop.h - the TIR-like loop IR that schedules produce and emit_c prints.
 *
 * Expressions are trees over loop variables, integer and float constants,
 * buffer loads, arithmetic, calls and selects. Statements are loops (with a
 * kind: serial, unrolled, vectorized, parallel), stores, sequences,
 * conditionals and local buffer allocations. Index arithmetic is done in C
 * `int` (ctvm refuses tensors of 2^31 elements or more); values are float32.
 * Builders simplify as they go (constant folding, x+0, x*1, x*0), so the
 * printed C stays readable. All nodes live in an Arena. */
#ifndef CTVM_IR_LOOP_H
#define CTVM_IR_LOOP_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"

typedef enum LType { LT_INT, LT_FLOAT } LType;

typedef enum ExprKind {
    EX_INT,    /* integer constant */
    EX_FLOAT,  /* float constant */
    EX_VAR,    /* loop variable (int) */
    EX_LOAD,   /* buf[index] */
    EX_BIN,    /* a op b */
    EX_CALL,   /* fn(a) */
    EX_SELECT, /* c ? a : b (only the chosen side is evaluated) */
} ExprKind;

typedef enum BinOp {
    BO_ADD, BO_SUB, BO_MUL,
    BO_DIV,    /* float division; for ints: division of non-negative values */
    BO_MOD,    /* ints: remainder of non-negative values */
    BO_MIN, BO_MAX,
    BO_LT, BO_LE, BO_GE, BO_EQ, /* comparisons: int result */
    BO_AND,                     /* logical and of int conditions */
} BinOp;

typedef enum CallOp {
    CO_EXP, CO_SQRT, CO_TANH, CO_SIGMOID, CO_NEG, CO_ABS,
    CO_ITOF, /* int -> float conversion */
} CallOp;

typedef enum BufKind {
    LB_INPUT,  /* caller's input pointer */
    LB_OUTPUT, /* caller's output pointer */
    LB_ARENA,  /* workspace + offset */
    LB_CONST,  /* weight blob + offset */
    LB_LOCAL,  /* declared by an ST_ALLOC (accumulators, small temporaries) */
} BufKind;

typedef struct LBuf {
    const char *name; /* C identifier hint */
    BufKind kind;
    int64_t numel;    /* elements */
    int64_t offset;   /* LB_ARENA: bytes into the workspace; LB_CONST: bytes into the blob */
    int io_index;     /* LB_INPUT / LB_OUTPUT: position in the entry point */
    int id;           /* unique per arena, for naming and identity */
    int virtual_;     /* stands for a value fused away; must not reach emitted code */
} LBuf;

typedef struct LVar {
    const char *name; /* hint, e.g. "oc" */
    int id;           /* unique: printed as name_id */
} LVar;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    LType type;
    int64_t i;      /* EX_INT */
    double f;       /* EX_FLOAT */
    LVar *var;      /* EX_VAR */
    LBuf *buf;      /* EX_LOAD */
    BinOp op;       /* EX_BIN */
    CallOp fn;      /* EX_CALL */
    Expr *a, *b, *c; /* operands: LOAD index in a; SELECT cond in c */
};

typedef enum StmtKind { ST_FOR, ST_STORE, ST_SEQ, ST_IF, ST_ALLOC } StmtKind;
typedef enum LoopKind { LOOP_SERIAL, LOOP_UNROLL, LOOP_VECTORIZE, LOOP_PARALLEL } LoopKind;

typedef struct Stmt Stmt;
struct Stmt {
    StmtKind kind;
    /* ST_FOR */
    LVar *var;
    int64_t extent;  /* var runs 0 .. extent-1 */
    LoopKind loop;
    Stmt *body;      /* ST_FOR, ST_IF (then), ST_ALLOC */
    /* ST_STORE */
    LBuf *buf;       /* also ST_ALLOC's local buffer */
    Expr *index, *value;
    /* ST_SEQ */
    int n;
    Stmt **items;
    /* ST_IF */
    Expr *cond;
};

/* Context for building: the arena and counters for unique ids. */
typedef struct LoopBuilder {
    Arena *arena;
    int next_var, next_buf;
} LoopBuilder;

LVar *lv_new(LoopBuilder *lb, const char *hint);
LBuf *lbuf_new(LoopBuilder *lb, const char *hint, BufKind kind, int64_t numel);

Expr *lx_int(LoopBuilder *lb, int64_t v);
Expr *lx_float(LoopBuilder *lb, double v);
Expr *lx_var(LoopBuilder *lb, LVar *v);
Expr *lx_load(LoopBuilder *lb, LBuf *buf, Expr *index);
Expr *lx_bin(LoopBuilder *lb, BinOp op, Expr *a, Expr *b); /* simplifies */
Expr *lx_call(LoopBuilder *lb, CallOp fn, Expr *a);
Expr *lx_select(LoopBuilder *lb, Expr *cond, Expr *a, Expr *b);
/* Shorthands */
Expr *lx_add(LoopBuilder *lb, Expr *a, Expr *b);
Expr *lx_mul(LoopBuilder *lb, Expr *a, Expr *b);
Expr *lx_muli(LoopBuilder *lb, Expr *a, int64_t k);
/* Copy of e with every use of var replaced by r. */
Expr *lx_subst(LoopBuilder *lb, Expr *e, const LVar *var, Expr *r);
int lx_uses_var(const Expr *e, const LVar *var);

Stmt *ls_for(LoopBuilder *lb, LVar *var, int64_t extent, LoopKind kind, Stmt *body);
Stmt *ls_store(LoopBuilder *lb, LBuf *buf, Expr *index, Expr *value);
Stmt *ls_seq(LoopBuilder *lb, int n, Stmt **items); /* items copied; NULL items skipped */
Stmt *ls_seq2(LoopBuilder *lb, Stmt *a, Stmt *b);
Stmt *ls_if(LoopBuilder *lb, Expr *cond, Stmt *then_s);
Stmt *ls_alloc(LoopBuilder *lb, LBuf *local, Stmt *body);
/* Copy of s with var replaced by r in every expression. */
Stmt *ls_subst(LoopBuilder *lb, Stmt *s, const LVar *var, Expr *r);

/* Readable dump for tests and --dump-loops: "for oc_3 in 0..64 { ... }". */
void loop_print(FILE *f, const Stmt *s, int indent);
void loop_print_expr(FILE *f, const Expr *e);

#endif
