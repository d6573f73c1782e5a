/* Calls f of ppc64le-local-entry.s (prologues-cross.test). */
int f(int);

int main(void)
{
	return f(-1);
}
