#include <mpi.h>
#include <stdio.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
int main(int c,char**v){double a=now();MPI_Init(&c,&v);double b=now();MPI_Finalize();double d=now();fprintf(stderr,"init %.3f fin %.3f\n",b-a,d-b);return 0;}
