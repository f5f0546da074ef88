// probe N: N times, in a fresh 8 MiB shared mapping, the round trip of one cache line between
// CPUs 0 and 1 (ns, 20000 round trips), a 256 KiB memcpy within CPU 0 (us, 200 times) and a
// compute spin on CPU 0 (ms). One line each. A validation aid for results/summarize/README.md.
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static void pin(int c){cpu_set_t s;CPU_ZERO(&s);CPU_SET(c,&s);sched_setaffinity(0,sizeof s,&s);}
static _Atomic long *flag; static int rounds=20000;
static void* ponger(void*a){pin(1);for(long i=0;i<rounds;i++){while(atomic_load_explicit(flag,memory_order_acquire)!=2*i+1);atomic_store_explicit(flag,2*i+2,memory_order_release);}return 0;}
int main(int argc,char**argv){int n=argc>1?atoi(argv[1]):100;pin(0);
 for(int k=0;k<n;k++){size_t len=8<<20;char*b=mmap(0,len,PROT_READ|PROT_WRITE,MAP_SHARED|MAP_ANONYMOUS,-1,0);
  for(size_t i=0;i<len;i+=4096)b[i]=1;
  flag=(_Atomic long*)(b+4096*(k%512)); atomic_store(flag,0);
  pthread_t t;pthread_create(&t,0,ponger,0);
  double t0=now();for(long i=0;i<rounds;i++){atomic_store_explicit(flag,2*i+1,memory_order_release);while(atomic_load_explicit(flag,memory_order_acquire)!=2*i+2);}
  double pp=(now()-t0)/rounds*1e9;pthread_join(t,0);
  // memcpy 256K within buffer, 200 times
  t0=now();for(int r=0;r<200;r++){__builtin_memcpy(b+(1<<20),b+(4<<20),256<<10);__asm__ volatile(""::"r"(b):"memory");}
  double mc=(now()-t0)/200*1e6;
  volatile double x=1.0;t0=now();for(long i=0;i<2000000;i++)x=x*1.0000001+1e-9;double sp=(now()-t0)*1e3;
  printf("%d pingpong_ns %.0f memcpy256k_us %.1f spin_ms %.2f\n",k,pp,mc,sp);fflush(stdout);
  munmap(b,len);}
}
