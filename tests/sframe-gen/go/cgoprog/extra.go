// SPDX-License-Identifier: GPL-2.0

package main

/*
#include <stdint.h>

extern uint64_t goBack(uint64_t);

static __attribute__((noinline)) uint64_t c_inner(uint64_t x)
{
	volatile uint64_t pad[16];

	pad[x % 16] = x;
	return goBack(pad[x % 16] + 1);
}

static __attribute__((noinline)) uint64_t c_outer(uint64_t x)
{
	return c_inner(x * 3) + 1;
}
*/
import "C"

//export goBack
func goBack(x C.uint64_t) C.uint64_t {
	return C.uint64_t(level1(8+int(x%5), uint64(x)))
}

// extra: a goroutine calling into C that calls back into Go.
func extra() {
	go func() {
		for i := 0; ; i++ {
			C.c_outer(C.uint64_t(i))
		}
	}()
}
