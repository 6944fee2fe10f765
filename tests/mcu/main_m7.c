/* main_m7.c - main of the Cortex-M7 test firmware (tests/mcu/run_m7.sh):
 * runs the ctvm-emitted model once on the input held in the generated
 * header input_m7.h and prints each output over semihosting as the exact
 * bits of the float, one "out[i] = 0xXXXXXXXX" line each, between
 * "ctvm-m7: start" and "ctvm-m7: done" lines; run_m7.sh decodes and checks
 * them. Build with -DCTVM_M7_CALLER_ARENA for a model emitted with
 * --arena caller (the firmware then owns the workspace and calls
 * model_run_ws); otherwise the model's static arena and model_run are used. */
#include <stdint.h>
#include <string.h>
#include "model.h"
#include "input_m7.h" /* static const float ctvm_m7_input[model_INPUT0_SIZE] */

void semi_puts(const char *s); /* startup_m7.c */

static float out[model_OUTPUT0_SIZE];
#ifdef CTVM_M7_CALLER_ARENA
/* 64-byte alignment is what the generated code prefers (model.h) */
static float ws[model_WORKSPACE_SIZE / 4] __attribute__((aligned(64)));
#endif

static void put_line(const char *prefix, unsigned idx, uint32_t bits)
{
    char buf[48];
    int i = 0;
    while (*prefix) buf[i++] = *prefix++;
    char dig[10];
    int n = 0;
    do { dig[n++] = (char)('0' + idx % 10); idx /= 10; } while (idx);
    while (n) buf[i++] = dig[--n];
    const char *mid = "] = 0x";
    while (*mid) buf[i++] = *mid++;
    for (int k = 28; k >= 0; k -= 4) buf[i++] = "0123456789abcdef"[(bits >> k) & 15];
    buf[i++] = '\n';
    buf[i] = 0;
    semi_puts(buf);
}

int main(void)
{
    semi_puts("ctvm-m7: start\n");
#ifdef CTVM_M7_CALLER_ARENA
    int rc = model_run_ws(ws, ctvm_m7_input, out);
#else
    int rc = model_run(ctvm_m7_input, out);
#endif
    if (rc != 0) {
        semi_puts("ctvm-m7: model returned an error\n");
        return 1;
    }
    for (unsigned i = 0; i < model_OUTPUT0_SIZE; i++) {
        uint32_t bits;
        memcpy(&bits, &out[i], sizeof bits);
        put_line("out[", i, bits);
    }
    semi_puts("ctvm-m7: done\n");
    return 0;
}
