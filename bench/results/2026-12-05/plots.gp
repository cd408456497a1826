set terminal png size 1200,560
set style data histograms
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set key top left
set grid ytics
set xtics rotate by -20
set yrange [0:*]
set output '/work/main/build/bench-full/stream-throughput.png'
set title 'TCP stream throughput per RX layout (bars: median of 3, whiskers: min-max; QEMU TCG: compare bars, not absolutes)'
set ylabel 'Mbit/s'
plot '/work/main/build/bench-full/plot-stream.dat' using 2:3:4:xtic(1) title 'default' lc 1, '/work/main/build/bench-full/plot-stream.dat' using 5:6:7:xtic(1) title 'legacy2012' lc 2, '/work/main/build/bench-full/plot-stream.dat' using 8:9:10:xtic(1) title 'wholepage2012' lc 3, '/work/main/build/bench-full/plot-stream.dat' using 11:12:13:xtic(1) title 'onefrag2013' lc 4, '/work/main/build/bench-full/plot-stream.dat' using 14:15:16:xtic(1) title 'veth' lc 5
set output '/work/main/build/bench-full/stream-service-demand.png'
set title 'TCP stream service demand per RX layout (VM CPU-us per KB received, lower is better; bars: median of 3, whiskers: min-max)'
set ylabel 'us/KB'
plot '/work/main/build/bench-full/plot-stream.dat' using 17:18:19:xtic(1) title 'default' lc 1, '/work/main/build/bench-full/plot-stream.dat' using 20:21:22:xtic(1) title 'legacy2012' lc 2, '/work/main/build/bench-full/plot-stream.dat' using 23:24:25:xtic(1) title 'wholepage2012' lc 3, '/work/main/build/bench-full/plot-stream.dat' using 26:27:28:xtic(1) title 'onefrag2013' lc 4, '/work/main/build/bench-full/plot-stream.dat' using 29:30:31:xtic(1) title 'veth' lc 5
set output '/work/main/build/bench-full/rr.png'
set title 'Request/response rate per RX layout (bars: median of 3, whiskers: min-max)'
set ylabel 'transactions/s'
plot '/work/main/build/bench-full/plot-rr.dat' using 2:3:4:xtic(1) title 'default' lc 1, '/work/main/build/bench-full/plot-rr.dat' using 5:6:7:xtic(1) title 'legacy2012' lc 2, '/work/main/build/bench-full/plot-rr.dat' using 8:9:10:xtic(1) title 'wholepage2012' lc 3, '/work/main/build/bench-full/plot-rr.dat' using 11:12:13:xtic(1) title 'onefrag2013' lc 4, '/work/main/build/bench-full/plot-rr.dat' using 14:15:16:xtic(1) title 'veth' lc 5
set output '/work/main/build/bench-full/rr-service-demand.png'
set title 'Request/response rate: service demand (VM CPU us/transaction, lower is better; bars: median of 3, whiskers: min-max)'
set ylabel 'us/transaction'
plot '/work/main/build/bench-full/plot-rr.dat' using 17:18:19:xtic(1) title 'default' lc 1, '/work/main/build/bench-full/plot-rr.dat' using 20:21:22:xtic(1) title 'legacy2012' lc 2, '/work/main/build/bench-full/plot-rr.dat' using 23:24:25:xtic(1) title 'wholepage2012' lc 3, '/work/main/build/bench-full/plot-rr.dat' using 26:27:28:xtic(1) title 'onefrag2013' lc 4, '/work/main/build/bench-full/plot-rr.dat' using 29:30:31:xtic(1) title 'veth' lc 5
set output '/work/main/build/bench-full/udp.png'
set title 'UDP stream received packets/s per RX layout (bars: median of 3, whiskers: min-max)'
set ylabel 'received packets/s'
plot '/work/main/build/bench-full/plot-udp.dat' using 2:3:4:xtic(1) title 'default' lc 1, '/work/main/build/bench-full/plot-udp.dat' using 5:6:7:xtic(1) title 'legacy2012' lc 2, '/work/main/build/bench-full/plot-udp.dat' using 8:9:10:xtic(1) title 'wholepage2012' lc 3, '/work/main/build/bench-full/plot-udp.dat' using 11:12:13:xtic(1) title 'onefrag2013' lc 4, '/work/main/build/bench-full/plot-udp.dat' using 14:15:16:xtic(1) title 'veth' lc 5
set output '/work/main/build/bench-full/udp-service-demand.png'
set title 'UDP stream received packets/s: service demand (VM CPU us/KB, lower is better; bars: median of 3, whiskers: min-max)'
set ylabel 'us/KB'
plot '/work/main/build/bench-full/plot-udp.dat' using 17:18:19:xtic(1) title 'default' lc 1, '/work/main/build/bench-full/plot-udp.dat' using 20:21:22:xtic(1) title 'legacy2012' lc 2, '/work/main/build/bench-full/plot-udp.dat' using 23:24:25:xtic(1) title 'wholepage2012' lc 3, '/work/main/build/bench-full/plot-udp.dat' using 26:27:28:xtic(1) title 'onefrag2013' lc 4, '/work/main/build/bench-full/plot-udp.dat' using 29:30:31:xtic(1) title 'veth' lc 5
