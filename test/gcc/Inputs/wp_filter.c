/* Input of test/gcc/whole-program-filter.test: calls the filter rules pick. */
struct ops { int (*read)(int); int (*write)(int); };
int hot_read(struct ops *o, int x) { return o->read(x) + 1; }
int hot_write(struct ops *o, int x) { return o->write(x) + 2; }
int two_lines(int (*f)(int), int (*g)(int), int x)
{
	int a = f(x);
	int b = g(x);
	return a + b;
}
