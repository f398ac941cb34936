// SPDX-License-Identifier: GPL-2.0

package main

// extra: nothing in the pure Go build.
func extra() {}
