#include <stdio.h>
void lib_handler(int x) { printf("lib(%d) ", x); }
