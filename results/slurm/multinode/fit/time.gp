# collbench plot; run: gnuplot <this file>
set terminal svg dynamic size 1000,620
set output 'fit/time.svg'
set title 'all_reduce: time (us)  (mpi default float32 sum out)' noenhanced
set logscale x 2
set xtics ('8' 8, '32' 32, '128' 128, '512' 512, '2K' 2048, '8K' 8192, '32K' 32768, '128K' 131072, '512K' 524288, '2M' 2097152)
set xrange [5.333333:6291456.000000]
set logscale y 10
set grid
set xlabel 'size (bytes)'
set ylabel 'time (us)'
set key outside below center horizontal maxcols 3 noenhanced
plot \
  'fit/time.dat' index 0 using 1:2 with linespoints lw 2 title 'np=2', \
  'fit/time.dat' index 1 using 1:2 with linespoints lw 2 title 'np=4', \
  'fit/time.dat' index 2 using 1:2 with linespoints lw 2 title 'np=8'
