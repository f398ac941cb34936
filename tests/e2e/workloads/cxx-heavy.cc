// SPDX-License-Identifier: GPL-2.0
/*
 * cxx-heavy - a C++ program whose time goes to libstdc++ and inlined STL
 * code: std::sort with a comparator (a function the sort calls back),
 * std::map inserts and lookups (libstdc++'s red-black tree rebalancing),
 * std::string building (operator new, libstdc++'s string code).  Built
 * -O2 -fomit-frame-pointer -Wa,--gsframe: the program has .sframe,
 * libstdc++ and libc only .eh_frame.
 *
 *   cxx-heavy SECONDS
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "touch-eh-frame-hdr.h"

#define NOINL __attribute__((noinline))

static volatile unsigned long sink;

NOINL static bool by_key(const std::pair<int, std::string> &a,
			 const std::pair<int, std::string> &b)
{
	return a.first < b.first || (a.first == b.first && a.second < b.second);
}

NOINL static void sort_pairs(unsigned int seed)
{
	std::vector<std::pair<int, std::string>> v;

	for (int i = 0; i < 400; i++)
		v.emplace_back(rand_r(&seed) % 1000, std::to_string(rand_r(&seed)));
	std::sort(v.begin(), v.end(), by_key);
	sink += v[200].first;
}

NOINL static void fill_map(unsigned int seed)
{
	std::map<std::string, int> m;

	for (int i = 0; i < 400; i++)
		m[std::to_string(rand_r(&seed) % 5000)] += i;
	for (int i = 0; i < 400; i++) {
		auto it = m.find(std::to_string(i));
		if (it != m.end())
			sink += it->second;
	}
}

NOINL static void work(unsigned long i)
{
	sort_pairs(static_cast<unsigned int>(i));
	fill_map(static_cast<unsigned int>(i * 7));
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	auto t0 = std::chrono::steady_clock::now();
	unsigned long i = 0;

	touch_eh_frame_hdrs();
	do
		work(i++);
	while (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() <
	       seconds);
	printf("%lu rounds\n", i);
	return 0;
}
