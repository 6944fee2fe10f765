/* semihost_io.c - newlib's _write for Cortex-M7 test programs that print
 * with printf (test_vec_api's lane checks on qemu-system-arm mps2-an500,
 * linked with startup_m7.c, mps2_an500.ld and --specs=nosys.specs; full
 * newlib, whose printf has %lld): stdout and stderr go out through semihosting in
 * NUL-terminated chunks (SYS_WRITE0, startup_m7.c's semi_puts); libnosys
 * stubs the rest. */
void semi_puts(const char *s); /* startup_m7.c */

int _write(int fd, const char *buf, int len);
int _write(int fd, const char *buf, int len)
{
    char chunk[129];
    int done = 0;
    if (fd != 1 && fd != 2)
        return -1;
    while (done < len) {
        int n = 0;
        while (n < 128 && done < len)
            chunk[n++] = buf[done++];
        chunk[n] = 0;
        semi_puts(chunk);
    }
    return len;
}
