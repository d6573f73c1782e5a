/* main() of the build-mode tests that put Inputs/modes.c in a library. */
int modes_main(void);

int main(void) { return modes_main(); }
