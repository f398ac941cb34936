// SPDX-License-Identifier: GPL-2.0

// The workload of the Go differential (tests/sframe-gen/go/run): busy
// goroutines in deep call chains of differing frame sizes, through
// closures, interface calls and recursion, until killed.
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
)

type stepper interface {
	step(n int, acc uint64) uint64
}

type small struct{}

type big struct{ pad [64]uint64 }

//go:noinline
func (small) step(n int, acc uint64) uint64 {
	if n <= 0 {
		return spin(acc)
	}
	return level1(n-1, acc+1)
}

//go:noinline
func (b *big) step(n int, acc uint64) uint64 {
	var local [32]uint64
	for i := range local {
		local[i] = acc + uint64(i) + b.pad[i%64]
	}
	if n <= 0 {
		return spin(local[n&31])
	}
	return level2(n-1, local[7])
}

var steppers = []stepper{small{}, &big{}}

//go:noinline
func spin(acc uint64) uint64 {
	for i := 0; i < 2000; i++ {
		acc = acc*6364136223846793005 + 1442695040888963407
	}
	if acc%1024 == 0 {
		runtime.Gosched()
	}
	return acc
}

//go:noinline
func level1(n int, acc uint64) uint64 {
	return steppers[n%2].step(n, acc^0x5555)
}

//go:noinline
func level2(n int, acc uint64) uint64 {
	var buf [512]byte
	buf[n%512] = byte(acc)
	f := func(m int) uint64 {
		return level3(m, acc+uint64(buf[m%512]))
	}
	return f(n)
}

//go:noinline
func level3(n int, acc uint64) uint64 {
	if n <= 0 {
		return spin(acc)
	}
	var big [4096]byte
	big[n] = 1
	if n%3 == 0 {
		return level1(n-1, acc+uint64(big[n]))
	}
	return level2(n-1, acc+uint64(big[n]))
}

func worker(id int, wg *sync.WaitGroup) {
	defer wg.Done()
	var acc uint64
	for i := 0; ; i++ {
		acc += level1(10+(i+id)%18, acc)
		if acc == 42 {
			fmt.Println(acc)
		}
	}
}

func main() {
	n := 3
	if len(os.Args) > 1 {
		fmt.Sscan(os.Args[1], &n)
	}
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go worker(i, &wg)
	}
	extra()
	wg.Wait()
}
