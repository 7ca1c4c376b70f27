/*
 * bcryptprimitives.dll for Wine 8, which lacks it: Rust's standard library (1.78+) imports
 * ProcessPrng from it for every random number (HashMap seeds, temp file names), and a Windows
 * program whose import is missing exits before main (status c0000135), silently.
 *
 * ProcessPrng is documented to always succeed, so callers do not check it: this one fills the
 * buffer from RtlGenRandom (advapi32's SystemFunction036, which Wine has), in chunks because
 * RtlGenRandom takes a ULONG length, and ends the process rather than return bytes that are not
 * random. Built by scripts/test-windows.sh with mingw-w64 gcc into the test WINEPREFIX; only
 * the tests under Wine use it, never a real Windows.
 */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk)) {
            TerminateProcess(GetCurrentProcess(), 0xC0000001 /* STATUS_UNSUCCESSFUL */);
        }
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
