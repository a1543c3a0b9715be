#include <cblas.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(int argc,char**argv){int m=atoi(argv[1]),n=m,k=256,P=16;
double*a=malloc(sizeof(double)*m*k),*b=malloc(sizeof(double)*n*k),*c=malloc(sizeof(double)*m*n);
for(long i=0;i<(long)m*k;i++)a[i]=1;for(long i=0;i<(long)n*k;i++)b[i]=.5;for(long i=0;i<(long)m*n;i++)c[i]=0;
double best[3]={1e9,1e9,1e9};int shapes[3][2]={{1,1},{1,P},{P,1}};
for(int rep=0;rep<3;rep++)for(int s=0;s<3;s++){int R=shapes[s][0],C=shapes[s][1];double t0=now();
for(int i=0;i<R;i++){int i0=m*i/R,i1=m*(i+1)/R;for(int j=0;j<C;j++){int j0=n*j/C,j1=n*(j+1)/C;
cblas_dgemm(CblasColMajor,CblasNoTrans,CblasTrans,i1-i0,j1-j0,k,1.0,a+i0,m,b+j0,n,1.0,c+i0+(long)j0*m,m);}}
double t=now()-t0;if(t<best[s])best[s]=t;}
double col=(best[1]-best[0])/(15.0*k*m),row=(best[2]-best[0])/(15.0*k*n);
printf("m=%d whole %.4f cols %.4f rows %.4f  col/elem %.3g row/elem %.3g ratio %.2f\n",m,best[0],best[1],best[2],col,row,row/col);}
