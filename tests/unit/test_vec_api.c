/* test_vec_api.c - the per-ISA vector API headers (templates/ctvm_vec_*.h),
 * exactly as embedded in the compiler (ctvm_embedded_find).
 *
 * For every header and compiler: runtime_min/ctvm_runtime.h + the header +
 * tests/unit/vec_api_check.c (which checks every API function lane by lane
 * against scalar C, see its top comment; vec_api_check_typed.c, pasted
 * before it with runtime_min/ctvm_types.h before the header, checks the
 * typed part: integers, float64, conversions, dot products) are compiled with
 * -std=c99 -Wall -Wextra -pedantic -Werror -O2 and the ISA flags, and run:
 * natively when this CPU has the ISA (__builtin_cpu_supports), under
 * qemu-aarch64 / qemu-arm for NEON; otherwise only compiled. gcc, clang and
 * the aarch64 / armhf cross gcc (tools/deps.sh installs them all; a missing
 * one fails the test). Also: each header alone with an empty main
 * compiles without a warning at -O0 (unused functions are free), each
 * header gives its #error, and only that, where its ISA cannot be had (a
 * compiler for another architecture, clang -fopenmp on a --threads file
 * without the x86 flags, ARM without a NEON-capable FPU), and each
 * embedded header declares the whole API. The "(in-file ISA)" configurations
 * build without the ISA flags: the header then enables its ISA itself
 * (#pragma GCC target / #pragma clang attribute) up to CTVM_ISA_END, which
 * program() places after the body as emit_c places it after the entry
 * points. The "+f16c", "+vnni", "+dotprod", "+i8mm" configurations take the
 * typed API's optional instructions (float16 by F16C, vpdpbusd, SDOT, USDOT);
 * AVX-VNNI is only compiled where the CPU lacks it.
 *
 * Prints one line per run with the measured max relative errors of
 * vexp / vtanh / vsigmoid / verf / vexpm1 / vlog / vlog1p
 * (templates/ctvm_vec_math.h, pasted after every header) and asserts
 * bounds on them. Run from the repository root (make test does):
 * the check program is read from tests/unit/vec_api_check.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "tests/unit/read_text.h"

#include "emit_c/emit.h"
#include "tests/unit/cc_run.h"

enum { CPU_ANY, CPU_SSE41, CPU_AVX2_FMA, CPU_AVX512F, CPU_AVX512VNNI, CPU_AVXVNNI, CPU_AVX512BF16, CPU_FOREIGN };

typedef struct VecConfig {
    const char *label;  /* for messages */
    const char *header; /* templates/ctvm_vec_*.h */
    const char *cc;     /* compiler command; its first word must be on the PATH */
    const char *flags;  /* ISA flags */
    int cpu;            /* what the host needs to run it natively */
    const char *runner; /* qemu command prefix for CPU_FOREIGN */
    const char *isa;    /* CTVM_ISA */
    int vl;             /* CTVM_VL */
    const char *needs;  /* another tool that must be installed (clang's cross binutils and libc) */
    const char *link;   /* extra flags and files for the linked check program only (bare metal) */
} VecConfig;

#define QEMU_A64 "qemu-aarch64 -L /usr/aarch64-linux-gnu"
#define QEMU_ARM "qemu-arm -L /usr/arm-linux-gnueabihf"
#define QEMU_RV64 "qemu-riscv64 -L /usr/riscv64-linux-gnu"
/* Cortex-M7 firmware on QEMU's mps2-an500 board, printing by semihosting to stdout
   (tests/mcu: startup, linker script, newlib's _write) */
#define QEMU_M7                                                                                                     \
    "qemu-system-arm -M mps2-an500 -nographic -monitor none -serial null -chardev stdio,id=semi "                \
    "-semihosting-config enable=on,target=native,chardev=semi "                                                     \
    "-kernel"
#define M7_CPU "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard"
#define M7_LINK                                                                                                     \
    "-nostartfiles --specs=nosys.specs -T tests/mcu/mps2_an500.ld "                                              \
    "tests/mcu/startup_m7.c tests/mcu/semihost_io.c"
#define ARM_VFPV4 "-mfpu=neon-vfpv4 -mfloat-abi=hard"
#define ARM_NEON "-mfpu=neon -mfloat-abi=hard" /* no VFPv4: vfma becomes vmla */

static const VecConfig CONFIGS[] = {
    {"generic gcc", "templates/ctvm_vec_scalar.h", "gcc", "", CPU_ANY, "", "scalar", 1, NULL, NULL},
    {"x86_64-sse4 gcc", "templates/ctvm_vec_sse4.h", "gcc", "-msse4.1", CPU_SSE41, "", "sse4", 4, NULL, NULL},
    {"x86_64-avx2 gcc", "templates/ctvm_vec_avx2.h", "gcc", "-mavx2 -mfma", CPU_AVX2_FMA, "", "avx2", 8, NULL, NULL},
    {"x86_64-avx512 gcc", "templates/ctvm_vec_avx512.h", "gcc", "-mavx512f", CPU_AVX512F, "", "avx512", 16, NULL, NULL},
    {"aarch64 gcc", "templates/ctvm_vec_neon.h", "aarch64-linux-gnu-gcc", "", CPU_FOREIGN, QEMU_A64, "neon", 4, NULL, NULL},
    {"armv7 neon-vfpv4 gcc", "templates/ctvm_vec_neon.h", "arm-linux-gnueabihf-gcc", ARM_VFPV4, CPU_FOREIGN,
     QEMU_ARM, "neon", 4, NULL, NULL},
    {"armv7 neon gcc", "templates/ctvm_vec_neon.h", "arm-linux-gnueabihf-gcc", ARM_NEON, CPU_FOREIGN, QEMU_ARM,
     "neon", 4, NULL, NULL},
    {"riscv64 gcc", "templates/ctvm_vec_scalar.h", "riscv64-linux-gnu-gcc", "", CPU_FOREIGN, QEMU_RV64, "scalar", 1,
     NULL, NULL},
    {"x86_64-sse4 gcc (in-file ISA)", "templates/ctvm_vec_sse4.h", "gcc", "", CPU_SSE41, "", "sse4", 4, NULL, NULL},
    {"x86_64-avx2 gcc (in-file ISA)", "templates/ctvm_vec_avx2.h", "gcc", "", CPU_AVX2_FMA, "", "avx2", 8, NULL, NULL},
    {"x86_64-avx512 gcc (in-file ISA)", "templates/ctvm_vec_avx512.h", "gcc", "", CPU_AVX512F, "", "avx512", 16, NULL, NULL},
    {"aarch64 +nosimd gcc (in-file ISA)", "templates/ctvm_vec_neon.h", "aarch64-linux-gnu-gcc", "-march=armv8-a+nosimd",
     CPU_FOREIGN, QEMU_A64, "neon", 4, NULL, NULL},
    /* Debian armhf's default -mfpu=vfpv3-d16: the header enables neon-vfpv4 */
    {"armv7 gcc (in-file ISA)", "templates/ctvm_vec_neon.h", "arm-linux-gnueabihf-gcc", "", CPU_FOREIGN, QEMU_ARM,
     "neon", 4, NULL, NULL},
    {"generic clang", "templates/ctvm_vec_scalar.h", "clang", "", CPU_ANY, "", "scalar", 1, NULL, NULL},
    {"x86_64-sse4 clang", "templates/ctvm_vec_sse4.h", "clang", "-msse4.1", CPU_SSE41, "", "sse4", 4, NULL, NULL},
    {"x86_64-avx2 clang", "templates/ctvm_vec_avx2.h", "clang", "-mavx2 -mfma", CPU_AVX2_FMA, "", "avx2", 8, NULL, NULL},
    {"x86_64-avx512 clang", "templates/ctvm_vec_avx512.h", "clang", "-mavx512f", CPU_AVX512F, "", "avx512", 16, NULL, NULL},
    {"aarch64 clang", "templates/ctvm_vec_neon.h", "clang --target=aarch64-linux-gnu", "", CPU_FOREIGN, QEMU_A64,
     "neon", 4, "aarch64-linux-gnu-gcc", NULL},
    {"armv7 neon-vfpv4 clang", "templates/ctvm_vec_neon.h", "clang --target=arm-linux-gnueabihf", ARM_VFPV4,
     CPU_FOREIGN, QEMU_ARM, "neon", 4, "arm-linux-gnueabihf-gcc", NULL},
    {"armv7 neon clang", "templates/ctvm_vec_neon.h", "clang --target=arm-linux-gnueabihf", ARM_NEON, CPU_FOREIGN,
     QEMU_ARM, "neon", 4, "arm-linux-gnueabihf-gcc", NULL},
    {"riscv64 clang", "templates/ctvm_vec_scalar.h", "clang --target=riscv64-linux-gnu", "", CPU_FOREIGN, QEMU_RV64,
     "scalar", 1, "riscv64-linux-gnu-gcc", NULL},
    {"x86_64-sse4 clang (in-file ISA)", "templates/ctvm_vec_sse4.h", "clang", "", CPU_SSE41, "", "sse4", 4, NULL, NULL},
    {"x86_64-avx2 clang (in-file ISA)", "templates/ctvm_vec_avx2.h", "clang", "", CPU_AVX2_FMA, "", "avx2", 8, NULL, NULL},
    {"x86_64-avx512 clang (in-file ISA)", "templates/ctvm_vec_avx512.h", "clang", "", CPU_AVX512F, "", "avx512", 16,
     NULL, NULL},
    /* the typed API's optional instructions: F16C, VNNI (AVX-512 and AVX), aarch64 dotprod and i8mm */
    {"x86_64-sse4 gcc +f16c", "templates/ctvm_vec_sse4.h", "gcc", "-msse4.1 -mf16c", CPU_AVX2_FMA, "", "sse4", 4,
     NULL, NULL},
    {"x86_64-avx2 gcc +f16c", "templates/ctvm_vec_avx2.h", "gcc", "-mavx2 -mfma -mf16c", CPU_AVX2_FMA, "", "avx2", 8,
     NULL, NULL},
    {"x86_64-avx2 gcc +avx512vnni", "templates/ctvm_vec_avx2.h", "gcc", "-mavx2 -mfma -mavx512vl -mavx512vnni",
     CPU_AVX512VNNI, "", "avx2", 8, NULL, NULL},
    {"x86_64-avx2 gcc +avxvnni", "templates/ctvm_vec_avx2.h", "gcc", "-mavx2 -mfma -mavxvnni", CPU_AVXVNNI, "",
     "avx2", 8, NULL, NULL},
    {"x86_64-avx512 gcc +vnni", "templates/ctvm_vec_avx512.h", "gcc", "-mavx512f -mavx512vnni", CPU_AVX512VNNI, "",
     "avx512", 16, NULL, NULL},
    {"x86_64-avx512 clang +vnni", "templates/ctvm_vec_avx512.h", "clang", "-mavx512f -mavx512vnni", CPU_AVX512VNNI,
     "", "avx512", 16, NULL, NULL},
    /* AVX512-BF16 (vdpbf16ps): by the flags, and as target x86_64-avx512-bf16's file enables it
       (CTVM_EXT_AVX512BF16, no flags) */
    {"x86_64-avx512 gcc +bf16", "templates/ctvm_vec_avx512.h", "gcc", "-mavx512f -mavx512vnni -mavx512bf16",
     CPU_AVX512BF16, "", "avx512", 16, NULL, NULL},
    {"x86_64-avx512 clang +bf16", "templates/ctvm_vec_avx512.h", "clang", "-mavx512f -mavx512vnni -mavx512bf16",
     CPU_AVX512BF16, "", "avx512", 16, NULL, NULL},
    {"x86_64-avx512 gcc (in-file ISA, ext avx512bf16)", "templates/ctvm_vec_avx512.h", "gcc", "-DCTVM_EXT_AVX512BF16",
     CPU_AVX512BF16, "", "avx512", 16, NULL, NULL},
    {"x86_64-avx512 clang (in-file ISA, ext avx512bf16)", "templates/ctvm_vec_avx512.h", "clang",
     "-DCTVM_EXT_AVX512BF16", CPU_AVX512BF16, "", "avx512", 16, NULL, NULL},
    {"aarch64 +dotprod gcc", "templates/ctvm_vec_neon.h", "aarch64-linux-gnu-gcc", "-march=armv8.2-a+dotprod",
     CPU_FOREIGN, QEMU_A64, "neon", 4, NULL, NULL},
    {"aarch64 +dotprod+i8mm gcc", "templates/ctvm_vec_neon.h", "aarch64-linux-gnu-gcc",
     "-march=armv8.2-a+dotprod+i8mm", CPU_FOREIGN, QEMU_A64, "neon", 4, NULL, NULL},
    {"aarch64 +dotprod clang", "templates/ctvm_vec_neon.h", "clang --target=aarch64-linux-gnu",
     "-march=armv8.2-a+dotprod", CPU_FOREIGN, QEMU_A64, "neon", 4, "aarch64-linux-gnu-gcc", NULL},
    /* the scalar header's Arm DSP dot products (SMLAD through ACLE): the cortex-m7
       target's build on an emulated Cortex-M7, and an ARMv7-A core's */
    {"cortex-m7 gcc (DSP, qemu-system-arm)", "templates/ctvm_vec_scalar.h", "arm-none-eabi-gcc", M7_CPU, CPU_FOREIGN,
     QEMU_M7, "scalar", 1, NULL, M7_LINK},
    {"armv7 scalar gcc (DSP)", "templates/ctvm_vec_scalar.h", "arm-linux-gnueabihf-gcc", "", CPU_FOREIGN, QEMU_ARM,
     "scalar", 1, NULL, NULL},
};
#define NCONFIGS ((int)(sizeof CONFIGS / sizeof CONFIGS[0]))

static const char *const API[] = {
    "ctvm_vload(",  "ctvm_vstore(", "ctvm_vset1(", "ctvm_vzero(",    "ctvm_vadd(", "ctvm_vsub(", "ctvm_vmul(",
    "ctvm_vdiv(",   "ctvm_vmin(",   "ctvm_vmax(",  "ctvm_vfma(",     "ctvm_vneg(", "ctvm_vabs(", "ctvm_vsqrt(",
    "ctvm_vlt(",    "ctvm_vle(",    "ctvm_vge(",   "ctvm_veq(",      "ctvm_vmand(", "ctvm_vselect(", "ctvm_vhsum(",
    "ctvm_vhmax(",  "ctvm_vhmin(", "ctvm_vload_n(", "ctvm_vstore_n(", "ctvm_vmask_n(", "ctvm_vfirst(", "ctvm_vdiv_fast(", "ctvm_vround(", "ctvm_vldexp(", "ctvm_vgetexp(",
    "ctvm_vbitand(", "ctvm_vbitor(",
    "ctvm_vgetmant(",
    /* the typed part (tests/unit/vec_api_check_typed.c) */
    "ctvm_vload_i32(", "ctvm_vstore_i32(", "ctvm_vload_16(", "ctvm_vstore_16(", "ctvm_vload_8(", "ctvm_vstore_8(",
    "ctvm_vload_f64(", "ctvm_vstore_f64(", "ctvm_vload_64(", "ctvm_vstore_64(", "ctvm_vload_q(", "ctvm_vset1_i32(",
    "ctvm_vset1_16(", "ctvm_vset1_8(", "ctvm_vset1_f64(", "ctvm_vset1_64(", "ctvm_vset1_q(", "ctvm_vzero_i32(",
    "ctvm_vadd_i32(", "ctvm_vsub_i32(", "ctvm_vmul_i32(", "ctvm_vmin_i32(", "ctvm_vmax_i32(", "ctvm_vmin_u32(",
    "ctvm_vmax_u32(", "ctvm_vand_i32(", "ctvm_vor_i32(", "ctvm_vxor_i32(", "ctvm_vnot_i32(", "ctvm_vneg_i32(",
    "ctvm_vabs_i32(", "ctvm_vshl_i32(", "ctvm_vshr_i32(", "ctvm_vshr_u32(", "ctvm_vlt_i32(", "ctvm_vle_i32(",
    "ctvm_vgt_i32(", "ctvm_vge_i32(", "ctvm_veq_i32(", "ctvm_vne_i32(", "ctvm_vlt_u32(", "ctvm_vle_u32(",
    "ctvm_vgt_u32(", "ctvm_vge_u32(", "ctvm_vgt(", "ctvm_vne(", "ctvm_vselect_i32(", "ctvm_vselect_f64(",
    "ctvm_vselect_64(", "ctvm_vselect_16(", "ctvm_vselect_8(", "ctvm_vmor(", "ctvm_vmxor(", "ctvm_vmnot(",
    "ctvm_vmask_of_b(", "ctvm_vb_of_mask(", "ctvm_vadd_f64(", "ctvm_vsub_f64(", "ctvm_vmul_f64(", "ctvm_vdiv_f64(",
    "ctvm_vmin_f64(", "ctvm_vmax_f64(", "ctvm_vfma_f64(", "ctvm_vsqrt_f64(", "ctvm_vneg_f64(", "ctvm_vabs_f64(",
    "ctvm_vlt_f64(", "ctvm_vle_f64(", "ctvm_vgt_f64(", "ctvm_vge_f64(", "ctvm_veq_f64(", "ctvm_vne_f64(",
    "ctvm_vadd_64(", "ctvm_vsub_64(", "ctvm_vand_64(", "ctvm_vor_64(", "ctvm_vxor_64(", "ctvm_vcvt_i8_i32(",
    "ctvm_vcvt_u8_i32(", "ctvm_vcvt_i16_i32(", "ctvm_vcvt_u16_i32(", "ctvm_vcvt_i32_8(", "ctvm_vcvt_i32_16(",
    "ctvm_vcvt_i32_u8_sat(", "ctvm_vcvt_i32_i8_sat(", "ctvm_vcvt_i32_u16_sat(", "ctvm_vcvt_i32_i16_sat(",
    "ctvm_vcvt_i32_f32(", "ctvm_vcvt_u32_f32(", "ctvm_vcvt_f32_i32(", "ctvm_vfloor(", "ctvm_vceil(",
    "ctvm_vtrunc(", "ctvm_vcvt_f16_f32(", "ctvm_vcvt_f32_f16(", "ctvm_vcvt_bf16_f32(", "ctvm_vcvt_f32_bf16(",
    "ctvm_vcvt_f32_f64(", "ctvm_vcvt_f64_f32(", "ctvm_vcvt_i32_64(", "ctvm_vcvt_u32_64(", "ctvm_vcvt_64_i32(",
    "ctvm_vdot_u8i8(", "ctvm_vdot_i8i8(", "ctvm_vcvt_f32_i32_rne(", "ctvm_vdot_bf16(", "ctvm_vmla16_i32(", "ctvm_vcvt_f32_i32_rne_in(",
    "ctvm_vset1_late(", "ctvm_vset1_i32_late(", "ctvm_vbcast4_q(", "ctvm_vbcast4_q_late(",
};

static int host_can_run(int cpu)
{
    if (cpu == CPU_ANY)
        return 1;
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (cpu == CPU_SSE41)
        return __builtin_cpu_supports("sse4.1");
    if (cpu == CPU_AVX2_FMA)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (cpu == CPU_AVX512F)
        return __builtin_cpu_supports("avx512f");
    if (cpu == CPU_AVX512VNNI)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") &&
               __builtin_cpu_supports("avx512vnni");
    if (cpu == CPU_AVX512BF16)
        return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vnni") &&
               __builtin_cpu_supports("avx512bf16");
    if (cpu == CPU_AVXVNNI)
        return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && __builtin_cpu_supports("avxvnni");
#endif
    return 0;
}

/* The x86 configurations need an x86 host compiler. */
static int host_can_compile(const VecConfig *k)
{
#if !defined(__x86_64__) && !defined(__i386__)
    if (k->cpu != CPU_ANY && k->cpu != CPU_FOREIGN)
        return 0;
#endif
    (void)k;
    return 1;
}

/* First word of a command ("clang --target=..." -> "clang"). */
static const char *tool_of(const char *cmd, char *buf, size_t n)
{
    size_t i = 0;
    while (cmd[i] && cmd[i] != ' ' && i + 1 < n) {
        buf[i] = cmd[i];
        i++;
    }
    buf[i] = 0;
    return buf;
}

/* 0 (with a printed "skipped: ..." line) when the host cannot build for k;
 * a failure when a compiler or emulator tools/deps.sh installs is missing. */
static int have_compiler(const VecConfig *k)
{
    char tool[64];
    if (!host_can_compile(k)) {
        printf("    skipped: %s: host is not x86\n", k->label);
        return 0;
    }
    if (!cc_have(tool_of(k->cc, tool, sizeof tool)))
        fail_msg("%s: %s not installed (bash tools/deps.sh installs it)", k->label, tool);
    if (k->needs && !cc_have(k->needs))
        fail_msg("%s: %s not installed (bash tools/deps.sh installs it)", k->label, k->needs);
    return 1;
}

/* runtime + header + templates/ctvm_vec_math.h + body + the end of the
 * header's ISA region, as emit_c lays them out. The runtime's unused
 * static inline helpers (ctvm_mini, ...) would trip clang's
 * -Wunused-function in a main file; that is the runtime's business, so it is
 * silenced around the runtime only: the vector headers get no such help. */
static char *program(const char *header, const char *pre, const char *body)
{
    const char *rt = ctvm_embedded_find("runtime_min/ctvm_runtime.h");
    const char *vec = ctvm_embedded_find(header);
    const char *math = ctvm_embedded_find("templates/ctvm_vec_math.h");
    assert_non_null(rt);
    assert_non_null(vec);
    assert_non_null(math);
    size_t n = strlen(rt) + strlen(pre) + strlen(vec) + strlen(math) + strlen(body) + 600;
    char *s = malloc(n);
    snprintf(s, n,
             "#if defined(__clang__)\n#pragma clang diagnostic push\n"
             "#pragma clang diagnostic ignored \"-Wunused-function\"\n#endif\n"
             "%s\n"
             "#if defined(__clang__)\n#pragma clang diagnostic pop\n#endif\n"
             "%s\n%s\n%s\n%s\n#ifdef CTVM_ISA_END\nCTVM_ISA_END\n#endif\n",
             rt, pre, vec, math, body);
    return s;
}

/* vec_api_check_typed.c, then vec_api_check.c (whose main calls check_typed) */
static char *check_program_text(void)
{
    char *typed = read_text("tests/unit/vec_api_check_typed.c");
    char *main_part = read_text("tests/unit/vec_api_check.c");
    if (!typed || !main_part)
        fprintf(stderr, "test_vec_api: cannot read tests/unit/vec_api_check*.c (run from the repository root)\n");
    assert_non_null(typed);
    assert_non_null(main_part);
    size_t n = strlen(typed) + strlen(main_part) + 2;
    char *s = malloc(n);
    snprintf(s, n, "%s\n%s", typed, main_part);
    free(typed);
    free(main_part);
    return s;
}

/* Compiles and runs the check program for one configuration. */
static void run_config(const VecConfig *k)
{
    if (!have_compiler(k))
        return;
    char *body = check_program_text();
    /* ctvm_types.h: the float16/bfloat16 reference, where emit_c pastes it (before the header) */
    const char *types = ctvm_embedded_find("runtime_min/ctvm_types.h");
    assert_non_null(types);
    char *text = program(k->header, types, body);
    char flags[512];
    snprintf(flags, sizeof flags, "-O2 %s %s", k->flags, k->link ? k->link : "");
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile_ex(&c, text, k->cc, flags, 0, 1);
    free(text);
    free(body);
    if (rc != 0) {
        cc_dir_close(&c);
        fail_msg("%s: the check program does not compile", k->label);
    }
    const char *prefix = "";
    char tool[64];
    if (k->cpu == CPU_FOREIGN) {
        if (!cc_have(tool_of(k->runner, tool, sizeof tool))) {
            printf("    %s: compiled only (%s not installed)\n", k->label, tool);
            cc_dir_close(&c);
            return;
        }
        prefix = k->runner;
    } else if (!host_can_run(k->cpu)) {
        printf("    %s: compiled only (this CPU lacks the ISA)\n", k->label);
        cc_dir_close(&c);
        return;
    }
    int status;
    char *out = cc_run_ex(&c, prefix, &status);
    cc_dir_close(&c);
    assert_non_null(out);
    /* one summary line: max errors and number of checks */
    enum { NF = 7 };
    double e[NF] = {-1, -1, -1, -1, -1, -1, -1};
    long checks = -1, fails = -1;
    char isa[32] = "";
    int vl = -1;
    const char *names[NF] = {"vexp", "vtanh", "vsigmoid", "verf", "vexpm1", "vlog", "vlog1p"};
    /* max relative error allowed: the measured one of every ISA, rounded up
       (armv7's sigmoid and tanh divide by a reciprocal estimate) */
    static const double bound[NF] = {1e-7, 2e-7, 3e-7, 2e-7, 2e-7, 2e-7, 2e-7};
    for (int i = 0; i < NF; i++) {
        char key[32];
        snprintf(key, sizeof key, "MAXERR %s ", names[i]);
        const char *p = strstr(out, key);
        if (p)
            e[i] = strtod(p + strlen(key), NULL);
    }
    const char *p = strstr(out, "isa ");
    if (p)
        sscanf(p, "isa %31s VL %d checks %ld fails %ld", isa, &vl, &checks, &fails);
    long typed = -1;
    int dot_u8i8 = -1, dot_i8i8 = -1, smlad = -1, dot_bf16 = -1;
    p = strstr(out, "typed checks ");
    if (p)
        sscanf(p, "typed checks %ld fails %*d dot_u8i8 %d dot_i8i8 %d smlad %d dot_bf16 %d", &typed, &dot_u8i8,
               &dot_i8i8, &smlad, &dot_bf16);
    printf("    %-24s vexp %.3g  vtanh %.3g  vsigmoid %.3g  verf %.3g  vexpm1 %.3g  vlog %.3g  vlog1p %.3g  "
           "(%ld checks, %ld typed, 1-instruction dot u8i8 %d i8i8 %d bf16 %d, SMLAD %d%s%s)\n",
           k->label, e[0], e[1], e[2], e[3], e[4], e[5], e[6], checks, typed, dot_u8i8, dot_i8i8, dot_bf16, smlad,
           prefix[0] ? ", under " : "",
           prefix[0] ? tool : "");
    if (status != 0 || fails != 0)
        fputs(out, stdout);
    free(out);
    assert_int_equal(status, 0);
    assert_int_equal(fails, 0);
    assert_string_equal(isa, k->isa);
    assert_int_equal(vl, k->vl);
    assert_true(checks > 250000);
    assert_true(typed > 500000);
    /* a configuration named for a dot-product extension must use its instruction */
    if (strstr(k->label, "vnni") || strstr(k->label, "i8mm"))
        assert_int_equal(dot_u8i8, 1);
    if (strstr(k->label, "+dotprod"))
        assert_int_equal(dot_i8i8, 1);
    /* vdpbf16ps exactly in the configurations named for AVX512-BF16 */
    assert_int_equal(dot_bf16, strstr(k->label, "bf16") ? 1 : 0);
    /* the scalar header takes SMLAD exactly where the core has the DSP extension */
    assert_int_equal(smlad, strstr(k->label, "(DSP") ? 1 : 0);
    for (int i = 0; i < NF; i++)
        if (!(e[i] >= 0 && e[i] <= bound[i]))
            fail_msg("%s: %s max relative error %.3g, bound %.3g", k->label, names[i], e[i], bound[i]);
}

static void test_check(void **state) { run_config((const VecConfig *)*state); }

/* Each header alone (only runtime + header + empty main) compiles without a
 * warning at -O0: nothing unused warns, immediates are constant even
 * unoptimized. */
static void test_header_alone(void **state)
{
    (void)state;
    for (int i = 0; i < NCONFIGS; i++) {
        const VecConfig *k = &CONFIGS[i];
        if (!have_compiler(k))
            continue;
        char *text = program(k->header, "", "int main(void) { return CTVM_VL > 0 ? 0 : 1; }\n");
        char flags[256];
        snprintf(flags, sizeof flags, "-O0 %s", k->flags);
        CcDir c;
        assert_int_equal(cc_dir_open(&c), 0);
        int rc = cc_compile_ex(&c, text, k->cc, flags, 1, 1);
        cc_dir_close(&c);
        free(text);
        if (rc != 0)
            fail_msg("%s: header alone does not compile cleanly", k->label);
    }
}

/* Where its ISA cannot be had, a header stops with its #error, and nothing
 * else; with only some of the ISA flags, it still builds (checked in
 * test_partial_flags). */
static void test_missing_flags_error(void **state)
{
    (void)state;
    static const struct {
        const char *header, *cc, *flags, *message;
    } cases[] = {
        {"templates/ctvm_vec_sse4.h", "aarch64-linux-gnu-gcc", "", "x86_64-sse4: this compiler does not build x86"},
        {"templates/ctvm_vec_avx2.h", "aarch64-linux-gnu-gcc", "", "x86_64-avx2: this compiler does not build x86"},
        {"templates/ctvm_vec_avx512.h", "arm-linux-gnueabihf-gcc", "", "x86_64-avx512: this compiler does not build x86"},
        {"templates/ctvm_vec_avx2.h", "clang --target=aarch64-linux-gnu", "",
         "x86_64-avx2: this compiler does not build x86"},
        {"templates/ctvm_vec_neon.h", "gcc", "", "aarch64/armv7-neon: compile for ARM with NEON"},
        {"templates/ctvm_vec_neon.h", "clang", "", "aarch64/armv7-neon: compile for ARM with NEON"},
        /* no FP/SIMD registers at all; clang's arm_neon.h needs NEON from the flags;
           an M-profile core has no NEON (gcc would take the pragma) */
        {"templates/ctvm_vec_neon.h", "aarch64-linux-gnu-gcc", "-mgeneral-regs-only",
         "aarch64/armv7-neon: compile for ARM with NEON"},
        {"templates/ctvm_vec_neon.h", "clang --target=arm-linux-gnueabihf", "-mfpu=vfpv3-d16",
         "aarch64/armv7-neon: compile for ARM with NEON"},
        {"templates/ctvm_vec_neon.h", "arm-linux-gnueabihf-gcc", "-mcpu=cortex-m7 -mthumb",
         "aarch64/armv7-neon: compile for ARM with NEON"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        VecConfig k = {cases[i].message, cases[i].header, cases[i].cc, cases[i].flags, CPU_ANY, "", "", 0, NULL, NULL};
#if !defined(__x86_64__) && !defined(__i386__)
        if (strcmp(cases[i].cc, "gcc") == 0 || strcmp(cases[i].cc, "clang") == 0)
            continue; /* host flags would differ */
#endif
        if (!have_compiler(&k))
            continue;
        char *text = program(cases[i].header, "", "int main(void) { return 0; }\n");
        CcDir c;
        assert_int_equal(cc_dir_open(&c), 0);
        int rc = cc_compile_ex(&c, text, cases[i].cc, cases[i].flags, 1, 0);
        char *log = cc_read_log(&c);
        cc_dir_close(&c);
        free(text);
        int errors = 0;
        for (const char *p = log; (p = strstr(p, "error:")) != NULL; p++)
            errors++;
        if (rc == 0 || !strstr(log, cases[i].message) || errors != 1) {
            fprintf(stderr, "%s %s %s:\n%s\n", cases[i].cc, cases[i].flags, cases[i].header, log);
            free(log);
            fail_msg("expected exactly the #error \"%s\"", cases[i].message);
        }
        free(log);
    }
}

/* With part of its ISA from the flags (or another ISA's), or clang
 * -fopenmp on a file without --threads, an x86 header still builds
 * warning-free: it adds the rest by pragma. */
static void test_partial_flags(void **state)
{
    (void)state;
    static const struct {
        const char *header, *cc, *flags;
    } cases[] = {
        {"templates/ctvm_vec_avx2.h", "gcc", "-mavx2"},
        {"templates/ctvm_vec_avx2.h", "gcc", "-mfma"},
        {"templates/ctvm_vec_avx512.h", "gcc", "-mavx2 -mfma"},
        {"templates/ctvm_vec_sse4.h", "gcc", "-fopenmp -DCTVM_THREADS=2"},
        {"templates/ctvm_vec_avx2.h", "clang", "-mavx2"},
        {"templates/ctvm_vec_avx512.h", "clang", "-mavx2 -mfma"},
        {"templates/ctvm_vec_avx2.h", "clang", "-fopenmp"},
    };
#if defined(__x86_64__) || defined(__i386__)
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        VecConfig k = {cases[i].flags, cases[i].header, cases[i].cc, cases[i].flags, CPU_ANY, "", "", 0, NULL, NULL};
        if (!have_compiler(&k))
            continue;
        char *text = program(cases[i].header, "", "int main(void) { return CTVM_VL > 0 ? 0 : 1; }\n");
        char flags[256];
        snprintf(flags, sizeof flags, "-O2 %s", cases[i].flags);
        CcDir c;
        assert_int_equal(cc_dir_open(&c), 0);
        int rc = cc_compile_ex(&c, text, cases[i].cc, flags, 1, 1);
        cc_dir_close(&c);
        free(text);
        if (rc != 0)
            fail_msg("%s %s %s: does not build", cases[i].cc, cases[i].flags, cases[i].header);
    }
#else
    (void)cases;
#endif
}

/* The cortex-m7 target's int8 inner loop and requantization, as
 * arm-none-eabi-gcc -O2 -mcpu=cortex-m7 -mthumb -mfloat-abi=hard compiles
 * them from the scalar header: the dot-product loop is SMLADs (two per 4
 * byte pairs, on SXTB16/UXTB16 with the ROR #8 folded in), and neither it
 * nor the float32 -> int32 -> uint8 epilogue calls anything (no libgcc
 * helper: no soft double, no __aeabi_f2lz). The objdump output of each
 * function is counted. */
static void test_m7_dsp_object(void **state)
{
    (void)state;
    static const char body[] =
        "int32_t dot_u8i8(const uint8_t *a, const int8_t *b, int n);\n"
        "int32_t dot_u8i8(const uint8_t *a, const int8_t *b, int n)\n"
        "{ int32_t acc = 0; int k; for (k = 0; k < n; k += 4) acc = ctvm_vdot_u8i8(acc, ctvm_vload_q(a + k), "
        "ctvm_vload_q(b + k)); return acc; }\n"
        "int32_t dot_i8i8(const int8_t *a, const int8_t *b, int n);\n"
        "int32_t dot_i8i8(const int8_t *a, const int8_t *b, int n)\n"
        "{ int32_t acc = 0; int k; for (k = 0; k < n; k += 4) acc = ctvm_vdot_i8i8(acc, ctvm_vload_q(a + k), "
        "ctvm_vload_q(b + k)); return acc; }\n"
        "void requant_u8(const int32_t *acc, uint8_t *o, int n, float s, int32_t zp);\n"
        "void requant_u8(const int32_t *acc, uint8_t *o, int n, float s, int32_t zp)\n"
        "{ int i; for (i = 0; i < n; i++) { float v = ctvm_vmul(ctvm_vcvt_i32_f32(acc[i]), s);\n"
        "  v = ctvm_vmin(ctvm_vmax(v, (float)(0 - zp)), (float)(255 - zp));\n"
        "  o[i] = ctvm_vcvt_i32_u8_sat(ctvm_vadd_i32(ctvm_vcvt_f32_i32_rne(v), zp)); } }\n";
    VecConfig k = {"cortex-m7", "templates/ctvm_vec_scalar.h", "arm-none-eabi-gcc", M7_CPU, CPU_FOREIGN, "", "scalar",
                   1, NULL, NULL};
    if (!have_compiler(&k))
        return;
    char *text = program(k.header, "", body);
    CcDir c;
    assert_int_equal(cc_dir_open(&c), 0);
    int rc = cc_compile_ex(&c, text, k.cc, "-O2 " M7_CPU, 1, 1);
    free(text);
    if (rc != 0) {
        cc_dir_close(&c);
        fail_msg("cortex-m7: the dot-product object does not compile");
    }
    /* per function: SMLADs, calls (bl/blx), and every undefined symbol */
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "arm-none-eabi-objdump -d %s/t.o | awk '/^[0-9a-f]+ <.*>:$/ {f=$2} "
             "/\\tsmlad\\t/ {s[f]++} /\\tbl(x)?\\t/ {b[f]++} "
             "END {for (g in s) print \"smlad\", g, s[g]; for (g in b) print \"call\", g, b[g]}'; "
             "arm-none-eabi-nm -u %s/t.o | awk '{print \"undef\", $2}'",
             c.dir, c.dir);
    FILE *p = popen(cmd, "r");
    assert_non_null(p);
    char line[256], out[4096] = "";
    int smlad_u = 0, smlad_i = 0, bad = 0;
    while (fgets(line, sizeof line, p)) {
        char kind[16], fn[128];
        int n = 0;
        strncat(out, line, sizeof out - strlen(out) - 1);
        if (sscanf(line, "%15s %127s %d", kind, fn, &n) < 2)
            continue;
        if (!strcmp(kind, "smlad") && !strcmp(fn, "<dot_u8i8>:"))
            smlad_u = n;
        else if (!strcmp(kind, "smlad") && !strcmp(fn, "<dot_i8i8>:"))
            smlad_i = n;
        else if (!strcmp(kind, "call") || !strcmp(kind, "undef"))
            bad++;
    }
    pclose(p);
    cc_dir_close(&c);
    printf("    cortex-m7 object: SMLAD in dot_u8i8 %d, dot_i8i8 %d; calls or undefined symbols %d\n", smlad_u,
           smlad_i, bad);
    if (smlad_u < 2 || smlad_i < 2 || bad)
        fail_msg("cortex-m7: expected SMLADs in both dot loops and no call or undefined symbol:\n%s", out);
}

/* Every embedded header: include guard, CTVM_VL, CTVM_ISA, the whole API. */
static void test_embedded_headers(void **state)
{
    (void)state;
    static const char *const headers[] = {"templates/ctvm_vec_scalar.h", "templates/ctvm_vec_sse4.h",
                                          "templates/ctvm_vec_avx2.h", "templates/ctvm_vec_avx512.h",
                                          "templates/ctvm_vec_neon.h"};
    for (size_t h = 0; h < sizeof headers / sizeof headers[0]; h++) {
        const char *t = ctvm_embedded_find(headers[h]);
        assert_non_null(t);
        assert_non_null(strstr(t, "#ifndef CTVM_VEC_H"));
        assert_non_null(strstr(t, "#define CTVM_VL "));
        assert_non_null(strstr(t, "#define CTVM_ISA \""));
        assert_non_null(strstr(t, "typedef"));
        for (size_t i = 0; i < sizeof API / sizeof API[0]; i++) {
            char def[64];
            snprintf(def, sizeof def, " %s", API[i]); /* "static CTVM_INLINE T name(" */
            if (!strstr(t, def))
                fail_msg("%s does not define %s", headers[h], API[i]);
        }
        if (h > 0)
            assert_non_null(strstr(t, "#error \"ctvm: generated for target "));
    }
}

int main(void)
{
    struct CMUnitTest tests[NCONFIGS + 5];
    int n = 0;
    for (int i = 0; i < NCONFIGS; i++) {
        struct CMUnitTest t = {CONFIGS[i].label, test_check, NULL, NULL, (void *)&CONFIGS[i]};
        tests[n++] = t;
    }
    const struct CMUnitTest rest[] = {
        cmocka_unit_test(test_header_alone),
        cmocka_unit_test(test_missing_flags_error),
        cmocka_unit_test(test_partial_flags),
        cmocka_unit_test(test_embedded_headers),
        cmocka_unit_test(test_m7_dsp_object),
    };
    for (size_t i = 0; i < sizeof rest / sizeof rest[0]; i++)
        tests[n++] = rest[i];
    return cmocka_run_group_tests_name("vec_api", tests, NULL, NULL);
}
