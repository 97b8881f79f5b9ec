/* License: { MIT } */
#include <stdio.h>
#include "local.h"
#define BRACE '{'
#define MULTI(x) \
    do { x; } \
    while (0)

static const char *s = "}{ \" }";
static char c = '}';

#ifdef __cplusplus
extern "C" {
#endif

struct point {
    int x, y;
};

#ifdef WIDE
int f(int a, int b) {
#else
int f(int a) {
#endif
    return a; /* } */
}

static int
g(void)
{
    // }
    return '{' + '\'' ;
}

#ifdef __cplusplus
}
#endif
