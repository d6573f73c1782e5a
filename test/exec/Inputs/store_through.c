/* Another translation unit that stores through a pointer it was given; it
 * knows nothing about keys. */
typedef int (*fp_t)(int);

void store_through(fp_t *where, fp_t value) { *where = value; }

fp_t exchange_through(fp_t *where, fp_t value)
{
	fp_t old = *where;

	*where = value;
	return old;
}
