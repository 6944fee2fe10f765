/* startup_m7.c - bare-metal start of the Cortex-M7 test firmware
 * (tests/mcu/run_m7.sh, QEMU mps2-an500): the vector table, the reset
 * handler (FPU on, .data copied, .bss zeroed, main called), a fault handler
 * that reports over semihosting and exits non-zero, and the two semihosting
 * calls the firmware needs (write a string, exit).
 *
 * Symbols from mps2_an500.ld: __stack_top, __data_load, __data_start,
 * __data_end, __bss_start, __bss_end. */
#include <stdint.h>

/* gcc -O2 must not turn the copy/zero loops below into memcpy/memset calls:
   they run before .data exists and need no C library. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-loop-distribute-patterns")
#endif

/* ---- ARM semihosting (BKPT 0xAB on M-profile; r0 = operation, r1 = arg) ---- */
#define SEMI_SYS_WRITE0 0x04 /* r1: NUL-terminated string, printed on the host */
#define SEMI_SYS_EXIT 0x18   /* r1: reason code (AArch32 form) */
#define ADP_Stopped_ApplicationExit 0x20026 /* QEMU exits with status 0 */
#define ADP_Stopped_RunTimeErrorUnknown 0x20023 /* QEMU exits with status 1 */

static uint32_t semihost(uint32_t op, uint32_t arg)
{
    register uint32_t r0 __asm__("r0") = op;
    register uint32_t r1 __asm__("r1") = arg;
    __asm__ volatile("bkpt 0xAB" : "+r"(r0) : "r"(r1) : "memory");
    return r0;
}

void semi_puts(const char *s) { semihost(SEMI_SYS_WRITE0, (uint32_t)(uintptr_t)s); }

/* ok != 0: normal exit (QEMU status 0); ok == 0: error exit (QEMU status 1) */
__attribute__((noreturn)) void semi_exit(int ok)
{
    semihost(SEMI_SYS_EXIT, ok ? ADP_Stopped_ApplicationExit : ADP_Stopped_RunTimeErrorUnknown);
    for (;;) /* not reached when semihosting is enabled */
        ;
}

static void put_hex(const char *label, uint32_t v)
{
    char buf[24];
    int i = 0;
    while (*label) buf[i++] = *label++;
    buf[i++] = '0'; buf[i++] = 'x';
    for (int k = 28; k >= 0; k -= 4) buf[i++] = "0123456789abcdef"[(v >> k) & 15];
    buf[i++] = '\n'; buf[i] = 0;
    semi_puts(buf);
}

/* ---- faults: every exception we do not expect ends the run with status 1 ---- */
#define SCB_CFSR (*(volatile uint32_t *)0xE000ED28) /* configurable fault status */
#define SCB_HFSR (*(volatile uint32_t *)0xE000ED2C) /* hard fault status */
#define SCB_CPACR (*(volatile uint32_t *)0xE000ED88) /* coprocessor access control */

/* called with the stacked exception frame (r0-r3, r12, lr, pc, xpsr) */
__attribute__((used, noreturn)) static void fault_report(const uint32_t *frame, uint32_t ipsr)
{
    semi_puts("FAULT: exception in firmware\n");
    put_hex("  exception ", ipsr & 0x1ff);
    put_hex("  pc   ", frame[6]);
    put_hex("  lr   ", frame[5]);
    put_hex("  CFSR ", SCB_CFSR);
    put_hex("  HFSR ", SCB_HFSR);
    semi_exit(0);
}

/* naked: find the frame on MSP or PSP (EXC_RETURN bit 2) before any C code */
__attribute__((naked)) void Fault_Handler(void)
{
    __asm__ volatile("tst lr, #4\n"
                     "ite eq\n"
                     "mrseq r0, msp\n"
                     "mrsne r0, psp\n"
                     "mrs r1, ipsr\n"
                     "b fault_report\n");
}

/* ---- reset ---- */
extern uint32_t __stack_top[], __data_load[], __data_start[], __data_end[], __bss_start[], __bss_end[];
int main(void);

__attribute__((noreturn)) void Reset_Handler(void)
{
    /* FPU first: CP10 and CP11 full access, before any floating-point code */
    SCB_CPACR |= (0xFu << 20);
    __asm__ volatile("dsb\n isb" ::: "memory");
    for (uint32_t *s = __data_load, *d = __data_start; d < __data_end;)
        *d++ = *s++;
    for (uint32_t *d = __bss_start; d < __bss_end;)
        *d++ = 0;
    int rc = main();
    semi_exit(rc == 0);
}

/* Cortex-M7 system exceptions; no interrupt is enabled, so no IRQ vectors.
   Entries as addresses (uintptr_t), so ISO C (-pedantic) allows the stack
   pointer beside the handlers. */
__attribute__((section(".vectors"), used)) static const uintptr_t vectors[16] = {
    (uintptr_t)__stack_top, /* initial MSP */
    (uintptr_t)Reset_Handler,
    (uintptr_t)Fault_Handler, /* NMI */
    (uintptr_t)Fault_Handler, /* HardFault */
    (uintptr_t)Fault_Handler, /* MemManage */
    (uintptr_t)Fault_Handler, /* BusFault */
    (uintptr_t)Fault_Handler, /* UsageFault */
    0, 0, 0, 0,               /* reserved */
    (uintptr_t)Fault_Handler, /* SVCall */
    (uintptr_t)Fault_Handler, /* DebugMonitor */
    0,                        /* reserved */
    (uintptr_t)Fault_Handler, /* PendSV */
    (uintptr_t)Fault_Handler, /* SysTick */
};
