// SPDX-License-Identifier: GPL-2.0
/*
 * operators_so: the operators pool engine run from a shared library
 * (liboperators.so, beside it: RUNPATH $ORIGIN), as engines ship. Its
 * binary has no probe; the library's are what --span usdt must find,
 * before the library is loaded (-- COMMAND) or in the maps (-p).
 * Arguments and output are operators'.
 */
int operators_main(int argc, char **argv);

int main(int argc, char **argv)
{
	return operators_main(argc, argv);
}
