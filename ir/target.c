/* target.c - the table of code-generation targets and host detection. */
#include "target.h"

#include <string.h>

static const Target TARGETS[] = {
    {"x86_64-avx512", "avx512", "templates/ctvm_vec_avx512.h", 16, 32, "-mavx512f -mfma"},
    {"x86_64-avx2", "avx2", "templates/ctvm_vec_avx2.h", 8, 16, "-mavx2 -mfma"},
    {"x86_64-sse4", "sse4", "templates/ctvm_vec_sse4.h", 4, 16, "-msse4.1"},
    {"aarch64", "neon", "templates/ctvm_vec_neon.h", 4, 32, ""},
    {"armv7-neon", "neon", "templates/ctvm_vec_neon.h", 4, 16, "-mfpu=neon-vfpv4 -mfloat-abi=hard"},
    {"riscv64", "scalar", "templates/ctvm_vec_scalar.h", 1, 32, ""},
    {"generic", "scalar", "templates/ctvm_vec_scalar.h", 1, 16, ""},
};
#define N_TARGETS (int)(sizeof TARGETS / sizeof TARGETS[0])

/* short aliases */
static const char *const ALIAS[][2] = {
    {"avx512", "x86_64-avx512"}, {"avx2", "x86_64-avx2"}, {"sse4", "x86_64-sse4"},
    {"scalar", "generic"},       {"neon", "aarch64"},
};

const Target *target_native(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f"))
        return target_find("x86_64-avx512");
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma"))
        return target_find("x86_64-avx2");
    if (__builtin_cpu_supports("sse4.1"))
        return target_find("x86_64-sse4");
#elif defined(__aarch64__)
    return target_find("aarch64");
#endif
    return target_find("generic");
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

const char *target_names(void)
{
    return "native|x86_64-avx512|x86_64-avx2|x86_64-sse4|aarch64|armv7-neon|riscv64|generic "
           "(aliases avx512, avx2, sse4, neon, scalar)";
}
