# ns-2.35 counterpart of Cai et al.'s Fig. 10 (§V-A2a; ccscope:
# ccscope.experiments.cai.fig10_scenario): one Agent/TCP/Sack1 flow with increase_num_ ALPHA
# and decrease_num_ BETA (GAIMD: the per-RTT increase and the fraction of the window kept),
# packetSize_ 1000 (the paper's MSS), window_ 10000, ns-2.35 defaults otherwise, from a host
# over a 1 Gb/s, 1 ms link to L, L-R 3 Mb/s 17 ms DropTail holding BUFFER packets (queue-limit),
# R to the sink over 1 Gb/s, 1 ms. The FTP starts at 0. No random element: one run.
# usage: ns ns2_cai_fig10.tcl ALPHA BETA BUFFER SIM_S WARMUP_S
# prints one JSON line: the bottleneck's utilization over [WARMUP_S, SIM_S] (bytes leaving L
# towards R, from its queue monitor, over what 3 Mb/s carries in that time).
set alpha [lindex $argv 0]; set beta [lindex $argv 1]; set buffer [lindex $argv 2]
set simt [lindex $argv 3]; set warm [lindex $argv 4]
set ns [new Simulator]
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Agent/TCP set increase_num_ $alpha
Agent/TCP set decrease_num_ $beta
foreach n {s L R d} { set $n [$ns node] }
$ns duplex-link $s $L 1000Mb 1ms DropTail
$ns duplex-link $L $R 3Mb 17ms DropTail
$ns duplex-link $R $d 1000Mb 1ms DropTail
$ns queue-limit $L $R $buffer
set mon [$ns monitor-queue $L $R ""]
set src [new Agent/TCP/Sack1]; set snk [new Agent/TCPSink/Sack1]
$ns attach-agent $s $src; $ns attach-agent $d $snk; $ns connect $src $snk
set ftp [new Application/FTP]; $ftp attach-agent $src
$ns at 0 "$ftp start"
set before 0
$ns at $warm {set before [$mon set bdepartures_]}
proc finish {} {
  global mon before simt warm
  set bytes [expr [$mon set bdepartures_] - $before]
  puts [format "{\"sim\":\"ns-2.35\",\"utilization\":%.6f}" \
    [expr $bytes * 8.0 / (3e6 * ($simt - $warm))]]
  exit 0
}
$ns at $simt "finish"
$ns run
