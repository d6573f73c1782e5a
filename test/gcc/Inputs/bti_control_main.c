/* Calls the library of bti_control.c (see there). */
int call_unpadded(int x);

int main(void)
{
	return call_unpadded(1) == 2 ? 0 : 1;
}
