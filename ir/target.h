/* target.h - what the compiler knows about the machine it generates code for.
 *
 * A target names the vector API header pasted into model.c (templates/), the
 * vector width in floats and the number of vector registers (the knobs the
 * schedules size their tiles and channel blocks by), and the compiler flags
 * the generated file needs, with the compiler and (for Linux targets off the
 * host) the qemu-user emulator the tests build and run it with. Nothing ISA-specific lives outside templates/:
 * passes and schedules only read these numbers. */
#ifndef CTVM_IR_TARGET_H
#define CTVM_IR_TARGET_H

typedef struct Target {
    const char *name;     /* as given to --target */
    const char *isa;      /* vector API: scalar, sse4, avx2, avx512, neon */
    const char *header;   /* embedded template pasted into model.c */
    int vl;               /* floats per vector (1 for scalar) */
    int n_vregs;          /* architectural vector (or FP) registers */
    const char *cflags;   /* flags the generated file needs with gcc */
    const char *arch;     /* machine: x86_64, aarch64, arm, riscv64, arm-m, or "" (any) */
    const char *cc;       /* Debian's compiler for it, named in the stamp ("gcc" on x86_64/any) */
    const char *runner;   /* user-mode emulator that runs its Linux binaries off-host, or NULL */
    int bare_metal;       /* no C library: the object may need only libgcc and libm */
    int isa_in_file;      /* the vector header enables the ISA itself (target pragma/attribute)
                             when the compiler lacks it, so cflags are optional: the stamp's
                             Build line omits them; ctvm-run still passes them */
    int fma;              /* ctvm_vfma is fused (one rounding) on this target, and so is the
                             math of templates/ctvm_vec_math.h that constant folding computes */
    const char *ext;      /* an ISA extension beyond the header's base ISA that the target
                             names (gcc's feature name, "avx512vnni"), or NULL: model.c
                             defines CTVM_EXT_<EXT, upper case> before the header, which then
                             enables it with the base ISA (isa_in_file) and uses it */
    const char *base;     /* the target this one extends (same header, vector width and
                             registers, so the same schedules), whose tuning records apply
                             to it too; NULL for none */
} Target;

/* The target called `name` ("native" detects the host); NULL if unknown. */
const Target *target_find(const char *name);
/* The target's vector header computes ctvm_vdot_bf16 in one instruction
 * (vdpbf16ps: x86_64-avx512-bf16), so bfloat16 products are worth packing
 * for it (pass pack_matmul). */
int target_has_bf16_dot(const Target *t);
/* The best target this host runs (x86: avx512-bf16 > avx512-vnni > avx512 > avx2-vnni > avx2 >
 * sse4 > generic). */
const Target *target_native(void);
/* The i-th target of the table, NULL past the end. */
const Target *target_at(int i);
/* 1 when code built for t runs on this host without emulation. */
int target_runs_natively(const Target *t);
/* Names accepted by --target, for usage text: "native|x86_64-avx512|...". */
const char *target_names(void);

#endif
