/* loop.h - the TIR-like loop IR that compute definitions and schedules
 * produce, emit_c prints and the interpreter (loop_interp.h) runs.
 *
 * Expressions are typed trees over loop variables, constants, buffer loads,
 * arithmetic, calls, casts and selects. Every expression has an LType:
 * LT_IDX is C `int` and carries loop variables, index arithmetic and
 * conditions (ctvm refuses tensors of 2^31 elements or more); the other
 * types are the compute types of tensor elements (ir/dtype.h). A load from
 * a buffer yields the compute type of the buffer's storage dtype (float16
 * loads as LT_F32, int4 as LT_I8, ...) and a store converts back, so the
 * arithmetic never sees storage formats. Integer arithmetic wraps (two's
 * complement, no undefined behaviour), integer division by zero gives 0.
 *
 * Statements are loops (serial, unrolled, vectorized, parallel), stores,
 * sequences, conditionals, local buffer allocations and calls of runtime
 * kernels (ST_CALL: sorting, NMS and the like, written once in C and run
 * both by generated code and by the interpreter). Builders simplify as they
 * go (constant folding, x+0, x*1, x*0), so the printed C stays readable.
 * All nodes live in an Arena. */
#ifndef CTVM_IR_LOOP_H
#define CTVM_IR_LOOP_H

#include <stdint.h>
#include <stdio.h>

#include "arena.h"
#include "dtype.h"

typedef enum LType {
    LT_IDX = 0, /* C int: loop variables, indices, conditions */
    LT_BOOL,    /* 0 or 1 */
    LT_I8, LT_I16, LT_I32, LT_I64,
    LT_U8, LT_U16, LT_U32, LT_U64,
    LT_F32, LT_F64,
    LT_F16, LT_BF16, /* storage only: lanes of a vector load or store of float16 /
                        bfloat16 elements, converted by an explicit EX_CAST */
    LT_COUNT
} LType;
#define LT_INT LT_IDX   /* older name */
#define LT_FLOAT LT_F32 /* older name */

LType lt_of_dtype(DType t);   /* of dtype_compute(t); LT_F32 for unsupported types */
DType lt_dtype(LType t);      /* LT_IDX -> DT_INT32, LT_BOOL -> DT_BOOL, ... */
const char *lt_c_type(LType t); /* "int", "int8_t", ..., "float", "double" */
const char *lt_name(LType t);   /* "idx", "bool", "i8", ..., "f32" */
int lt_is_float(LType t);
int lt_is_int(LType t);       /* integer element types, not LT_IDX or LT_BOOL */
int lt_is_signed_int(LType t);
int lt_bits(LType t);         /* width of the integer types (32 for LT_IDX) */
int lt_is_cond(LType t);      /* LT_IDX or LT_BOOL: usable as a condition */

typedef enum ExprKind {
    EX_INT,    /* integer (or bool) constant of its type */
    EX_FLOAT,  /* float constant of its type */
    EX_VAR,    /* loop variable (LT_IDX) */
    EX_LOAD,   /* buf[index] */
    EX_BIN,    /* a op b */
    EX_CALL,   /* fn(a) */
    EX_SELECT, /* c ? a : b (only the chosen side is evaluated) */
    EX_CAST,   /* (type)a */
    /* vector nodes (made by the loop passes of lower/, ir/loop_vec.h): */
    EX_BCAST,  /* a (scalar) in every lane */
    EX_FMA,    /* a * b + c, fused (vector float) */
    EX_DOT,    /* a (lanes x i32) + per lane the sum of 4 products of b and c
                  (4*lanes x u8/i8 each): VNNI vpdpbusd, SDOT; or a (lanes x f32)
                  + the 2 products of b and c (2*lanes x bf16 each), odd one
                  first: vdpbf16ps */
    EX_MLA16,  /* a + b * c (lanes x i32 each), b in [0, 32767] and c in
                  [-32768, 32767]: a 16-bit product, pmaddwd / vpdpwssd */
    EX_LANEMASK, /* LT_BOOL mask of `lanes` lanes, the first i of them set
                    (ctvm_vmask_n): a tail shorter than a vector */
    EX_HREDUCE,  /* scalar float32: the lanes of vector a combined by op (BO_ADD,
                    BO_MIN, BO_MAX; ctvm_vhsum / vhmin / vhmax) */
} ExprKind;

typedef enum BinOp {
    BO_ADD, BO_SUB, BO_MUL,
    BO_DIV,    /* floats: IEEE; typed ints: truncating, x/0 = 0; LT_IDX: non-negative values */
    BO_MOD,    /* floats: fmod; typed ints: C remainder (sign of a), x%0 = 0; LT_IDX: non-negative */
    BO_MIN, BO_MAX, /* floats: a < b ? a : b and a > b ? a : b (as ctvm_minf/maxf) */
    BO_LT, BO_LE, BO_GE, BO_EQ, /* comparisons: LT_IDX for LT_IDX operands, else LT_BOOL */
    BO_AND,    /* conditions and bool: logical; integers: bitwise */
    BO_OR,     /* conditions and bool: logical; integers: bitwise */
    BO_XOR,    /* bool: logical; integers: bitwise */
    BO_SHL, BO_SHR, /* integers; a shift by >= the width gives 0 (logical for unsigned) */
    BO_POW,    /* floats: pow; integers: exact power (wrapping), a negative exponent gives 0
                  unless the base is 1 or -1 */
    BO_GT, BO_NE,   /* comparisons, as above */
    BO_COUNT
} BinOp;

typedef enum CallOp {
    CO_EXP, CO_SQRT, CO_TANH, CO_SIGMOID, CO_NEG, CO_ABS,
    CO_ITOF, /* LT_IDX -> LT_F32 (older form of EX_CAST) */
    CO_LOG, CO_ERF, CO_SIN, CO_COS, CO_TAN, CO_ASIN, CO_ACOS, CO_ATAN,
    CO_SINH, CO_COSH, CO_ASINH, CO_ACOSH, CO_ATANH,
    CO_FLOOR, CO_CEIL,
    CO_ROUND,  /* to nearest, ties to even */
    CO_LOG1P, CO_EXPM1,
    CO_NOT,    /* bool/conditions: logical not; integers: bitwise not */
    CO_ISNAN, CO_ISINF, CO_ISPOSINF, CO_ISNEGINF, /* -> LT_BOOL */
    CO_RND_F16, CO_RND_BF16, /* LT_F32 rounded to float16 / bfloat16 precision (stays LT_F32):
                                the per-operation rounding of arithmetic in those types */
    CO_COUNT
} CallOp;

typedef enum BufKind {
    LB_INPUT,  /* caller's input pointer */
    LB_OUTPUT, /* caller's output pointer */
    LB_ARENA,  /* workspace + offset */
    LB_CONST,  /* weight blob + offset */
    LB_LOCAL,  /* declared by an ST_ALLOC (accumulators, small temporaries) */
    LB_OUTDIMS, /* caller's int64 shape array of dynamic output io_index */
} BufKind;

typedef struct LBuf {
    const char *name; /* C identifier hint (a value's name as in the model) */
    const char *cname; /* its C identifier, unique in the module (lower/lp_names.c), or NULL */
    BufKind kind;
    DType dtype;      /* storage type of the elements */
    int64_t numel;    /* elements */
    int64_t offset;   /* LB_ARENA: bytes into the workspace; LB_CONST: bytes into the blob */
    int io_index;     /* LB_INPUT / LB_OUTPUT: position in the entry point */
    int id;           /* unique per arena, for naming and identity */
    int virtual_;     /* stands for a value fused away; must not reach emitted code */
} LBuf;

typedef struct LVar {
    const char *name; /* hint, e.g. "oc" */
    int id;           /* unique: printed as name_id */
    LType type;       /* LT_IDX for loops; placeholders (a stage's acc) take their value's type */
    int lanes;        /* register variables (lower/lp_registers.c): vector lanes, 0/1 scalar */
} LVar;

typedef struct Expr Expr;
struct Expr {
    ExprKind kind;
    LType type;
    int64_t i;      /* EX_INT (LT_U64 values keep their bits) */
    double f;       /* EX_FLOAT */
    LVar *var;      /* EX_VAR */
    LBuf *buf;      /* EX_LOAD */
    BinOp op;       /* EX_BIN */
    CallOp fn;      /* EX_CALL */
    Expr *a, *b, *c; /* operands: LOAD index in a; SELECT cond in c; CAST operand in a */
    /* (a vector EX_CAST float32 -> int32 with i = LX_CAST_RNE_IN: rounds to
     * nearest even, its operand known integral-bounded, in range, not NaN) */
    /* vector lanes (0 or 1: scalar). A vector EX_LOAD reads `lanes`
     * consecutive elements from the scalar index a (its first lane); a
     * vector comparison is a LT_BOOL mask; EX_SELECT's condition may stay
     * scalar (uniform). The element type is `type`. */
    int lanes;
    /* a vector float32 EX_LOAD of the first `partial` lanes only (> 0; the
       others read as 0; ctvm_vload_n): a tail shorter than a vector */
    int partial;
};

typedef enum StmtKind {
    ST_FOR, ST_STORE, ST_SEQ, ST_IF, ST_ALLOC, ST_CALL,
    /* made by the loop passes of lower/ (ir/loop_vec.h): */
    ST_DECL,    /* register variables vars[0..n_vars) declared around body */
    ST_ASSIGN,  /* var = value (a register variable) */
    ST_SINGLE,  /* team kernel: body run by one thread (a phase of one chunk) */
    ST_BARRIER, /* team kernel: every thread waits until the phases so far are done */
} StmtKind;
typedef enum LoopKind {
    LOOP_SERIAL, LOOP_UNROLL, LOOP_VECTORIZE, LOOP_PARALLEL,
    LOOP_TEAM, /* team kernel: the threads take chunks of the iterations (Stmt.chunks) */
} LoopKind;
/* What a compute definition states about a loop of its custom nest, without
 * knowing the target: schedule/schedule_custom.c turns these into loop kinds
 * from the vector width and the thread count. */
typedef enum LoopRole {
    LR_NONE = 0,
    LR_INDEPENDENT, /* ST_FOR: iterations independent (each may run on its own thread);
                       ST_SEQ: items independent. Stmt.work says how much there is */
    LR_LANES,       /* ST_FOR: a contiguous axis of float32 values whose iterations may run
                       in vector lanes; stores acc[0] = acc[0] op e (op +, min, max) into
                       one-element local accumulators inside it, or inside the perfect loop
                       nest it ends, are reductions that may keep per-lane partials.
                       On a LOOP_VECTORIZE loop shorter than a vector (the schedule's
                       tail of such an axis): its iterations may run as the first lanes
                       of one vector, loading and storing those lanes only */
    LR_PANEL,       /* ST_FOR: runs over the lanes of one packed panel (pass layout chose
                       its width, the target's vector width) */
    LR_TILE,        /* ST_FOR: a small axis indexing a register tile (accumulator slots
                       become registers once it is unrolled) */
} LoopRole;

#define LOOP_CALL_MAX_BUFS 16
#define LOOP_CALL_MAX_ARGS 256

typedef struct Stmt Stmt;
struct Stmt {
    StmtKind kind;
    /* ST_FOR */
    LVar *var;
    int64_t extent;  /* var runs 0 .. extent-1 */
    LoopKind loop;
    int chunks;      /* LOOP_TEAM: the iterations in this many chunks (lower/lp_threads.c),
                        fixed at compile time, taken by the threads at run time */
    LoopRole role;   /* ST_FOR, ST_SEQ: set by compute definitions (ls_role) */
    int64_t work;    /* LR_INDEPENDENT: multiply-adds (or elements) of the whole statement, or
                        -1 when every part is long enough to be worth a thread */
    Stmt *body;      /* ST_FOR, ST_IF (then), ST_ALLOC */
    /* ST_STORE */
    LBuf *buf;       /* also ST_ALLOC's local buffer */
    Expr *index, *value;
    /* ST_STORE into a float8 buffer: 0 saturates (the default), 1 lets
     * overflow become inf/NaN (Cast saturate=0); into float8e8m0 the
     * rounding is CTVM_ROUND_* of ctvm_types.h (0 = up, the default) */
    int store_nosat, store_round;
    /* a vector float32 ST_STORE of the first `partial` lanes only (> 0;
       ctvm_vstore_n): a tail shorter than a vector */
    int partial;
    /* ST_SEQ */
    int n;
    Stmt **items;
    /* ST_IF */
    Expr *cond;
    Stmt *else_body; /* ST_IF: optional */
    /* ST_CALL: fn(bufs..., iargs..., fargs...) of a runtime kernel
     * (ir/loop_kernels.h); every buffer is passed whole */
    const char *fn;
    int n_bufs, n_iargs, n_fargs;
    LBuf **bufs;
    int *buf_written; /* per buffer: 1 when the kernel writes it */
    int64_t *iargs;
    double *fargs;
    /* ST_CALL: when iexpr is set, iargs[iexpr_at] is its value at run time
     * (the slot of a call inside a parallel loop: ls_call_iarg) */
    Expr *iexpr;
    int iexpr_at;
    /* ST_DECL */
    int n_vars;
    LVar **vars;
    /* ST_IF in a team kernel: > 0 when every thread evaluates cond into
     * ctvm_if<team_if - 1>, then waits, then branches (lower/lp_threads.c) */
    int team_if;
};

/* Context for building: the arena and counters for unique ids. */
typedef struct LoopBuilder {
    Arena *arena;
    int next_var, next_buf;
} LoopBuilder;

LVar *lv_new(LoopBuilder *lb, const char *hint);
LVar *lv_new_typed(LoopBuilder *lb, const char *hint, LType type);
/* A float32 buffer (the common case), or one of another storage dtype. */
LBuf *lbuf_new(LoopBuilder *lb, const char *hint, BufKind kind, int64_t numel);
LBuf *lbuf_new_typed(LoopBuilder *lb, const char *hint, BufKind kind, DType dtype, int64_t numel);

Expr *lx_int(LoopBuilder *lb, int64_t v);                 /* LT_IDX constant */
Expr *lx_float(LoopBuilder *lb, double v);                /* LT_F32 constant */
Expr *lx_const_i(LoopBuilder *lb, LType t, int64_t v);    /* integer/bool constant of type t (wrapped) */
Expr *lx_const_f(LoopBuilder *lb, LType t, double v);     /* constant of type t from a double
                                                             (floats rounded to t, ints truncated) */
Expr *lx_zero(LoopBuilder *lb, LType t);
Expr *lx_one(LoopBuilder *lb, LType t);
/* The lowest / highest value of t (-inf / +inf for floats): reduction identities. */
Expr *lx_lowest(LoopBuilder *lb, LType t);
Expr *lx_highest(LoopBuilder *lb, LType t);
Expr *lx_var(LoopBuilder *lb, LVar *v);
Expr *lx_load(LoopBuilder *lb, LBuf *buf, Expr *index);
/* Binary op; operands of different types are an error caught by assert,
 * except that LT_IDX and LT_BOOL mix in conditions and shifts. Simplifies. */
Expr *lx_bin(LoopBuilder *lb, BinOp op, Expr *a, Expr *b);
Expr *lx_call(LoopBuilder *lb, CallOp fn, Expr *a);
Expr *lx_select(LoopBuilder *lb, Expr *cond, Expr *a, Expr *b);
Expr *lx_cast(LoopBuilder *lb, LType t, Expr *a); /* no-op when a is already t */
/* Shorthands */
Expr *lx_add(LoopBuilder *lb, Expr *a, Expr *b);
Expr *lx_sub(LoopBuilder *lb, Expr *a, Expr *b);
Expr *lx_mul(LoopBuilder *lb, Expr *a, Expr *b);
Expr *lx_div(LoopBuilder *lb, Expr *a, Expr *b);
Expr *lx_muli(LoopBuilder *lb, Expr *a, int64_t k);
/* Copy of e with every use of var replaced by r. */
Expr *lx_subst(LoopBuilder *lb, Expr *e, const LVar *var, Expr *r);
int lx_uses_var(const Expr *e, const LVar *var);
int lx_loads_buf(const Expr *e, const LBuf *b); /* some load of e reads buffer b */

Stmt *ls_for(LoopBuilder *lb, LVar *var, int64_t extent, LoopKind kind, Stmt *body);
/* s (an ST_FOR or ST_SEQ, or NULL) with its role and work set; returns s. */
Stmt *ls_role(Stmt *s, LoopRole role, int64_t work);
/* Store; a value of another type than the buffer's compute type is cast. */
Stmt *ls_store(LoopBuilder *lb, LBuf *buf, Expr *index, Expr *value);
Stmt *ls_seq(LoopBuilder *lb, int n, Stmt **items); /* items copied; NULL items skipped */
Stmt *ls_seq2(LoopBuilder *lb, Stmt *a, Stmt *b);
Stmt *ls_if(LoopBuilder *lb, Expr *cond, Stmt *then_s);
Stmt *ls_if_else(LoopBuilder *lb, Expr *cond, Stmt *then_s, Stmt *else_s);
Stmt *ls_alloc(LoopBuilder *lb, LBuf *local, Stmt *body);
/* A runtime kernel call; arrays are copied. written[i] says whether the
 * kernel writes bufs[i]. */
Stmt *ls_call(LoopBuilder *lb, const char *fn, int n_bufs, LBuf *const *bufs, const int *written, int n_iargs,
              const int64_t *iargs, int n_fargs, const double *fargs);
/* Copy of call s whose integer argument `at` is e, evaluated at run time. */
Stmt *ls_call_iarg(LoopBuilder *lb, const Stmt *s, int at, Expr *e);
/* Copy of s with var replaced by r in every expression. */
Stmt *ls_subst(LoopBuilder *lb, Stmt *s, const LVar *var, Expr *r);

/* Arithmetic of the IR on constants, shared by the builders' folding and
 * the interpreter. loop_int_op: integer, bool and index types (values
 * wrapped to t; comparisons give 0/1); 0 when op does not apply (or an
 * index division by zero). loop_float_op: + - * / min max on floats,
 * rounded to t; 0 for other ops. loop_wrap_int: v as a value of type t. */
int loop_int_op(LType t, BinOp op, int64_t a, int64_t b, int64_t *out);
int loop_float_op(LType t, BinOp op, double a, double b, double *out);
int64_t loop_wrap_int(LType t, int64_t v);

/* Readable dump for tests and --dump-loops: "for oc_3 in 0..64 { ... }". */
void loop_print(FILE *f, const Stmt *s, int indent);
void loop_print_expr(FILE *f, const Expr *e);
const char *lx_bin_name(BinOp op);  /* "+", "min", ... */
const char *lx_call_name(CallOp fn); /* "exp", ... */

#endif
