/* hk_test: cmocka includes and small helpers shared by the unit tests. */
#ifndef HK_TEST_H
#define HK_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#define assert_near(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#endif
