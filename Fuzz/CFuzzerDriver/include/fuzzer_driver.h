#ifndef GQLGATE_FUZZER_DRIVER_H
#define GQLGATE_FUZZER_DRIVER_H
#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (the fuzzer's own `main`), for an executable whose
/// `main` is Swift's: it parses libFuzzer's flags from argv and runs `callback`.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
