// SPDX-License-Identifier: GPL-2.0
/* The program's entry point; the checker itself is fsck_main() (the fuzzer calls it too). */
#include "fsck.h"

int main(int argc, char **argv)
{
	return fsck_main(argc, argv);
}
