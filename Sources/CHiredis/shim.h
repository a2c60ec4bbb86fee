#ifndef GQLGATE_CHIREDIS_SHIM_H
#define GQLGATE_CHIREDIS_SHIM_H
#include <sys/types.h>
#include <stdint.h>
#include <stddef.h>
#include <hiredis/hiredis.h>
#endif
