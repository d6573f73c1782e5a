/* Control for the BTI execution tests (aarch64): a BTI-marked shared library
 * (-mbranch-protection=standard) whose function `unpadded` has no landing
 * pad; calling it through a pointer must kill a process that enforces BTI. */
__attribute__((target("branch-protection=none"))) int unpadded(int x)
{
	return x + 1;
}

int (*volatile unpadded_ptr)(int) = unpadded;

int call_unpadded(int x)
{
	return unpadded_ptr(x);
}
