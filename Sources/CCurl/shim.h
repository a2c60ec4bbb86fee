#ifndef GQLGATE_CCURL_SHIM_H
#define GQLGATE_CCURL_SHIM_H
#include <curl/curl.h>
#endif
