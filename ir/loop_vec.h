/* loop_vec.h - builders of the nodes the loop passes of lower/ add to a
 * scheduled nest before printing: vector expressions (loads of `lanes`
 * consecutive elements, broadcasts, elementwise operations, fused
 * multiply-add, dot products), register variables (declarations and
 * assignments) and the statements of a kernel run by a thread team
 * (thread 0 alone, barriers, loops shared among the threads).
 *
 * Every vector node carries its element type (Expr.type) and lane count
 * (Expr.lanes); a conversion between element types is an explicit EX_CAST
 * of the same lanes. Unlike the builders of loop.h these do not simplify:
 * the passes that call them decide the form. */
#ifndef CTVM_IR_LOOP_VEC_H
#define CTVM_IR_LOOP_VEC_H

#include "loop.h"

/* lanes of e (1 for a scalar) */
int lx_lanes(const Expr *e);

/* `lanes` consecutive elements of buf from index0 (a scalar LT_IDX index),
 * of type t: the buffer's compute type, or its storage type where a
 * conversion node follows */
Expr *lx_vload(LoopBuilder *lb, LBuf *buf, Expr *index0, int lanes, LType t);
Expr *lx_bcast(LoopBuilder *lb, Expr *scalar, int lanes);
/* `group` (4 lanes of 8-bit elements) repeated to `lanes` lanes: the
   input operand of a dot product, one 32-bit group broadcast */
Expr *lx_bcast_group(LoopBuilder *lb, Expr *group, int lanes);
/* elementwise on vectors of the same lanes (a scalar operand is broadcast
 * first); comparisons give LT_BOOL masks */
Expr *lx_vbin(LoopBuilder *lb, BinOp op, Expr *a, Expr *b);
Expr *lx_vcall(LoopBuilder *lb, CallOp fn, Expr *a);
Expr *lx_vcast(LoopBuilder *lb, LType t, Expr *a);
/* cond ? a : b per lane (cond a mask), or for every lane (cond scalar) */
Expr *lx_vselect(LoopBuilder *lb, Expr *cond, Expr *a, Expr *b);
Expr *lx_fma(LoopBuilder *lb, Expr *a, Expr *b, Expr *c);
/* acc (lanes x i32) + sum over j < 4 of x[4l+j] * y[4l+j] per lane l;
 * x and y have 4*lanes lanes of LT_U8 or LT_I8 */
Expr *lx_dot(LoopBuilder *lb, Expr *acc, Expr *x, Expr *y);
/* acc + b * c, all int32 vectors, b known in [0, 32767] and c in [-32768, 32767]
   (EX_MLA16: ctvm_vmla16_i32, one vpdpwssd with AVX-512 VNNI) */
Expr *lx_mla16(LoopBuilder *lb, Expr *acc, Expr *b, Expr *c);
/* a float32 vector known not NaN and within int32 -> int32, rounded to
   nearest even (EX_CAST with i = LX_CAST_RNE_IN: ctvm_vcvt_f32_i32_rne_in) */
#define LX_CAST_RNE_IN 1
Expr *lx_vcvt_rne_in(LoopBuilder *lb, Expr *a);
/* a broadcast with i = LX_BCAST_LATE is made where it is used, never held
   in a register across loops or iterations: a constant in a register
   tile's epilogue (ctvm_vset1_late, lower/lp_tile_consts.c), a dot
   product's input group a later step reads again (ctvm_vbcast4_q_late,
   lower/lp_fresh_bcast.c). Same value. */
#define LX_BCAST_LATE 1

/* the mask of the first n of `lanes` lanes (EX_LANEMASK: ctvm_vmask_n) */
Expr *lx_lanemask(LoopBuilder *lb, int n, int lanes);
/* the float32 lanes of v combined by op (+, min, max): a scalar (EX_HREDUCE) */
Expr *lx_hreduce(LoopBuilder *lb, BinOp op, Expr *v);

/* A register variable of type t (lanes 1: scalar) and its use. */
LVar *lv_new_reg(LoopBuilder *lb, const char *name, LType t, int lanes);
Expr *lx_reg(LoopBuilder *lb, LVar *v);

/* buf[index0 .. index0 + lanes) = value (a vector of buf's element type) */
Stmt *ls_vstore(LoopBuilder *lb, LBuf *buf, Expr *index0, Expr *value);
Stmt *ls_assign(LoopBuilder *lb, LVar *var, Expr *value);
Stmt *ls_decl(LoopBuilder *lb, int n, LVar *const *vars, Stmt *body);
Stmt *ls_single(LoopBuilder *lb, Stmt *body);
Stmt *ls_barrier(LoopBuilder *lb);

/* Shallow copies, for passes that replace a node's children. */
Expr *lx_clone(LoopBuilder *lb, const Expr *e);
Stmt *ls_clone(LoopBuilder *lb, const Stmt *s);

/* A rewrite of expressions: fn returns what replaces node e (not looked
 * into further), or NULL to keep e with its operands rewritten. */
typedef Expr *(*LxMapFn)(LoopBuilder *lb, Expr *e, void *arg);
/* e rewritten by fn; nodes whose operands did not change are shared, not
   copied (e itself when nothing changed) */
Expr *lx_map(LoopBuilder *lb, Expr *e, LxMapFn fn, void *arg);
/* A copy of statement s (and every statement in it) with each expression it
   holds (conditions, indices, values, a call's run-time argument) rewritten
   by lx_map */
Stmt *ls_map_exprs(LoopBuilder *lb, Stmt *s, LxMapFn fn, void *arg);

/* Text of the vector and register nodes for loop_print (ir/loop.c). */
void loop_print_vec_expr(FILE *f, const Expr *e);

#endif
