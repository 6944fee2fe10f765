/* target.c - the table of code-generation targets and host detection. */
#include "target.h"

#include <string.h>

static const Target TARGETS[] = {
    {"x86_64-avx512", "avx512", "templates/ctvm_vec_avx512.h", 16, 32, "-mavx512f -mfma", "x86_64", "gcc", NULL, 0, 1, 1, NULL, NULL},
    /* AVX-512 with VNNI (Cascade Lake, Ice Lake and later, Zen 4): ctvm_vdot_u8i8 is
       one vpdpbusd. The file enables VNNI itself with AVX-512F (CTVM_EXT_AVX512VNNI),
       so a plain gcc -O2 builds it; it runs only on a CPU with VNNI, which is what
       the target names. Same header, width and registers as x86_64-avx512, whose
       tuning records apply to it. */
    {"x86_64-avx512-vnni", "avx512", "templates/ctvm_vec_avx512.h", 16, 32, "-mavx512f -mfma -mavx512vnni", "x86_64",
     "gcc", NULL, 0, 1, 1, "avx512vnni", "x86_64-avx512"},
    /* AVX-512 with VNNI and BF16 (Cooper Lake, Sapphire Rapids, Zen 4): also
       ctvm_vdot_bf16 as one vdpbf16ps, which pass bf16_matmul uses for the
       products of two bfloat16 operands. Enabled by the file itself as for
       x86_64-avx512-vnni (CTVM_EXT_AVX512BF16 implies VNNI in the header);
       tuning records of x86_64-avx512 apply. */
    {"x86_64-avx512-bf16", "avx512", "templates/ctvm_vec_avx512.h", 16, 32,
     "-mavx512f -mfma -mavx512vnni -mavx512bf16", "x86_64", "gcc", NULL, 0, 1, 1, "avx512bf16", "x86_64-avx512"},
    {"x86_64-avx2", "avx2", "templates/ctvm_vec_avx2.h", 8, 16, "-mavx2 -mfma", "x86_64", "gcc", NULL, 0, 1, 1, NULL, NULL},
    /* AVX2 with AVX-VNNI (Alder Lake, Sapphire Rapids' AVX2 side, Zen 5): the
       VEX-encoded vpdpbusd, enabled by the file itself as for x86_64-avx512-vnni */
    {"x86_64-avx2-vnni", "avx2", "templates/ctvm_vec_avx2.h", 8, 16, "-mavx2 -mfma -mavxvnni", "x86_64", "gcc", NULL,
     0, 1, 1, "avxvnni", "x86_64-avx2"},
    {"x86_64-sse4", "sse4", "templates/ctvm_vec_sse4.h", 4, 16, "-msse4.1", "x86_64", "gcc", NULL, 0, 1, 0, NULL, NULL},
    {"aarch64", "neon", "templates/ctvm_vec_neon.h", 4, 32, "", "aarch64", "aarch64-linux-gnu-gcc",
     "qemu-aarch64", 0, 1, 1, NULL, NULL},
    /* ARMv8.2-A with the dot-product extension (Cortex-A55/A75/A76 and later,
       Neoverse, Apple M): ctvm_vdot_* are one SDOT. The flag is required (the
       header cannot enable dotprod itself), so it is in the stamp's Build line. */
    {"aarch64-dotprod", "neon", "templates/ctvm_vec_neon.h", 4, 32, "-march=armv8.2-a+dotprod", "aarch64",
     "aarch64-linux-gnu-gcc", "qemu-aarch64", 0, 0, 1, NULL, NULL},
    {"armv7-neon", "neon", "templates/ctvm_vec_neon.h", 4, 16, "-mfpu=neon-vfpv4 -mfloat-abi=hard", "arm",
     "arm-linux-gnueabihf-gcc", "qemu-arm", 0, 1, 1, NULL, NULL},
    {"riscv64", "scalar", "templates/ctvm_vec_scalar.h", 1, 32, "", "riscv64", "riscv64-linux-gnu-gcc",
     "qemu-riscv64", 0, 0, 1, NULL, NULL},
    /* Cortex-M7 (FPv5: 32 single-precision registers); bare metal, so no runner */
    {"cortex-m7", "scalar", "templates/ctvm_vec_scalar.h", 1, 32, "-mcpu=cortex-m7 -mthumb -mfloat-abi=hard",
     "arm-m", "arm-none-eabi-gcc", NULL, 1, 0, 1, NULL, NULL},
    {"generic", "scalar", "templates/ctvm_vec_scalar.h", 1, 16, "", "", "gcc", NULL, 0, 0, 0, NULL, NULL},
};
#define N_TARGETS (int)(sizeof TARGETS / sizeof TARGETS[0])

/* short aliases */
static const char *const ALIAS[][2] = {
    {"avx512", "x86_64-avx512"}, {"avx2", "x86_64-avx2"}, {"sse4", "x86_64-sse4"},
    {"scalar", "generic"},       {"neon", "aarch64"},        {"cortex-m", "cortex-m7"},
};

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

/* Bit `bit` of register reg (0 eax, 1 ebx, 2 ecx, 3 edx) of CPUID leaf 7,
   subleaf sub; 0 when the leaf is absent. */
static int cpu_leaf7(unsigned sub, int reg, int bit)
{
    unsigned r[4] = {0, 0, 0, 0};
    if (!__get_cpuid_count(7, sub, &r[0], &r[1], &r[2], &r[3]))
        return 0;
    return (int)((r[reg] >> bit) & 1u);
}
#endif

const Target *target_native(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    /* the VNNI variants: int8 dot products in one instruction (issue 22);
       their bits read from CPUID leaf 7 (clang 14's __builtin_cpu_supports
       knows no "avxvnni"), the OS support of the registers from avx512f /
       avx2 above them */
    if (__builtin_cpu_supports("avx512f")) {
        /* AVX512_BF16: CPUID leaf 7 subleaf 1, eax bit 5 */
        if (cpu_leaf7(0, 2, 11) && cpu_leaf7(1, 0, 5))
            return target_find("x86_64-avx512-bf16");
        return target_find(cpu_leaf7(0, 2, 11) ? "x86_64-avx512-vnni" : "x86_64-avx512");
    }
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return target_find(cpu_leaf7(1, 0, 4) ? "x86_64-avx2-vnni" : "x86_64-avx2");
    if (__builtin_cpu_supports("sse4.1"))
        return target_find("x86_64-sse4");
#elif defined(__aarch64__)
    return target_find("aarch64");
#elif defined(__arm__) && defined(__ARM_NEON) && defined(__ARM_FEATURE_FMA)
    return target_find("armv7-neon"); /* ctvm itself was built for NEON + VFPv4 */
#elif defined(__riscv) && __riscv_xlen == 64
    return target_find("riscv64");
#endif
    return target_find("generic");
}

int target_has_bf16_dot(const Target *t)
{
    return t && t->ext && strcmp(t->ext, "avx512bf16") == 0;
}

const Target *target_find(const char *name)
{
    if (!name || strcmp(name, "native") == 0)
        return target_native();
    for (size_t i = 0; i < sizeof ALIAS / sizeof ALIAS[0]; i++)
        if (strcmp(name, ALIAS[i][0]) == 0)
            name = ALIAS[i][1];
    for (int i = 0; i < N_TARGETS; i++)
        if (strcmp(TARGETS[i].name, name) == 0)
            return &TARGETS[i];
    return NULL;
}

const Target *target_at(int i)
{
    return i >= 0 && i < N_TARGETS ? &TARGETS[i] : NULL;
}

int target_runs_natively(const Target *t)
{
#if defined(__x86_64__)
    const char *host = "x86_64";
#elif defined(__aarch64__)
    const char *host = "aarch64";
#elif defined(__arm__)
    const char *host = "arm";
#elif defined(__riscv) && __riscv_xlen == 64
    const char *host = "riscv64";
#else
    const char *host = "?";
#endif
    return t->arch[0] == 0 || strcmp(t->arch, host) == 0;
}

const char *target_names(void)
{
    return "native|x86_64-avx512|x86_64-avx512-vnni|x86_64-avx512-bf16|x86_64-avx2|x86_64-avx2-vnni|x86_64-sse4|aarch64|aarch64-dotprod|armv7-neon|riscv64|cortex-m7|generic "
           "(aliases avx512, avx2, sse4, neon, scalar, cortex-m)";
}
