/* Built without the plugin: stores to check-mode-stale-key.c's key that
 * the runtime does not see. */
typedef int (*fp_t)(int);
extern fp_t hook;

void unseen_set(fp_t f) { hook = f; }
