// SPDX-License-Identifier: GPL-2.0
// A CPU-bound JavaScript loop whose hot functions V8 compiles (JIT code in
// anonymous memory): top -> mid -> leaf, for ARGV[2] seconds, or, when
// ARGV[3] is given, for that many rounds whatever the time (a fixed amount
// of work, for tests/e2e/bench-complete).
'use strict';

function leaf(n) {
	let s = 0;
	for (let i = 0; i < n; i++)
		s += (i * i) % 7;
	return s;
}

function mid(n) {
	return leaf(n) + leaf(n >> 1) + 1;
}

function top(n) {
	return mid(n) * 2 + 1;
}

const end = Date.now() + 1000 * Number(process.argv[2] || 3);
const rounds = Number(process.argv[3] || 0);
let total = 0;
for (let r = 0; rounds ? r < rounds : Date.now() < end; r++)
	total += top(20000);
console.log(total > 0 ? 'done' : 'never');
