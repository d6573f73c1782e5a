// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
/*
 * tinyxml2_bench: the C++ workload of the real-world benchmark
 * (bench/realworld.py, docs/realworld.md), linked against TinyXML-2 as
 * Debian ships it (unmodified tinyxml2.cpp, scripts/realworld/build.sh).
 *
 *     tinyxml2_bench FILE LOOPS
 *
 * Each loop parses FILE into a document, walks it with a visitor (every
 * node's Accept() and the visitor's Visit*() are virtual calls), prints it
 * into memory with XMLPrinter (a visitor too), and deep-clones it into a
 * second document (ShallowClone() is virtual). Prints one line of counts
 * and a checksum of the printed text: the same in every build of a given
 * input, so the checks compare it with the plain build's.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "tinyxml2.h"

using namespace tinyxml2;

namespace {

struct Counter : XMLVisitor {
	unsigned long elements = 0, attributes = 0, texts = 0, comments = 0,
		      other = 0, text_bytes = 0;

	bool VisitEnter(const XMLElement &, const XMLAttribute *a) override
	{
		elements++;
		for (; a; a = a->Next())
			attributes++;
		return true;
	}
	bool Visit(const XMLText &t) override
	{
		texts++;
		text_bytes += std::strlen(t.Value());
		return true;
	}
	bool Visit(const XMLComment &) override
	{
		comments++;
		return true;
	}
	bool Visit(const XMLDeclaration &) override
	{
		other++;
		return true;
	}
	bool Visit(const XMLUnknown &) override
	{
		other++;
		return true;
	}
};

unsigned long fnv(const char *s, size_t n)
{
	unsigned long h = 1469598103934665603UL;

	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211UL;
	return h;
}

} // namespace

int main(int argc, char **argv)
{
	if (argc != 3) {
		std::fprintf(stderr, "usage: %s FILE LOOPS\n", argv[0]);
		return 2;
	}
	std::FILE *f = std::fopen(argv[1], "rb");
	if (!f) {
		std::perror(argv[1]);
		return 1;
	}
	std::vector<char> text;
	char buf[65536];
	size_t n;
	while ((n = std::fread(buf, 1, sizeof(buf), f)) > 0)
		text.insert(text.end(), buf, buf + n);
	std::fclose(f);
	int loops = std::atoi(argv[2]);
	Counter c;
	unsigned long sum = 0, printed = 0, cloned = 0;

	for (int i = 0; i < loops; i++) {
		XMLDocument doc;
		if (doc.Parse(text.data(), text.size()) != XML_SUCCESS) {
			std::fprintf(stderr, "%s: %s\n", argv[1], doc.ErrorStr());
			return 1;
		}
		doc.Accept(&c);
		XMLPrinter p;
		doc.Print(&p);
		printed += (unsigned long)p.CStrSize();
		sum = sum * 31 + fnv(p.CStr(), (size_t)p.CStrSize());
		XMLDocument copy;
		doc.DeepCopy(&copy);
		for (const XMLNode *e = copy.FirstChild(); e; e = e->NextSibling())
			cloned++;
	}
	std::printf("elements %lu attributes %lu texts %lu comments %lu other %lu "
		    "text bytes %lu printed %lu top-level %lu checksum %016lx\n",
		    c.elements, c.attributes, c.texts, c.comments, c.other,
		    c.text_bytes, printed, cloned, sum);
	return 0;
}
