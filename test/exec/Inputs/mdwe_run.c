/*
 * mdwe_run PROGRAM [ARG...]: run PROGRAM with the kernel's
 * memory-deny-write-execute set (prctl PR_SET_MDWE,
 * PR_MDWE_REFUSE_EXEC_GAIN; Linux 6.3 and later; inherited across execve):
 * no mapping that is or was writable may become executable, and no
 * mapping is made writable and executable at once (test/exec/mdwe.test).
 */
#include <stdio.h>
#include <sys/prctl.h>
#include <unistd.h>

#ifndef PR_SET_MDWE
#define PR_SET_MDWE 65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: mdwe_run PROGRAM [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0)) {
		perror("mdwe_run: prctl(PR_SET_MDWE)");
		return 2;
	}
	execv(argv[1], argv + 1);
	perror("mdwe_run: execv");
	return 2;
}
