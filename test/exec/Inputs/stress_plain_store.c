/* Built without the plugin: a store to stress.c's key that the runtime
 * does not see (the caller follows it with dyncall_update). */
typedef int (*fp_t)(int);
extern fp_t key;

void plain_store(fp_t value)
{
	__atomic_store_n(&key, value, __ATOMIC_SEQ_CST);
}
