# ns-2.35 counterpart of scenarios/yang-fig29-leave.toml (Yang, Kim & Lam 2003 §5.2, Figs.
# 27-29; ccscope.experiments.yang.fig27_29): sixteen flows of AGENT over a 2.5 Mb/s, 30 ms
# bottleneck, DropTail 50 packets, each on its own 100 Mb/s, 10 ms access links, starting at
# uniform times in [0, 2) s; eight of them stop at 200 s. 1000-byte payloads.
# AGENT and INCREASE DECREASE as bench/ns2_yang_common.tcl (Sack1 [GAIMD] or TFRC).
# usage: ns ns2_yang_fig29.tcl SIM_S BIN_S SEED AGENT [INCREASE DECREASE]
# prints one JSON line: the packets waiting at the bottleneck at the end of each BIN_S bin (a
# queue monitor), the first bin starting at 0, as ccscope's queue trace.
set simt [lindex $argv 0]; set bin [lindex $argv 1]; set seed [lindex $argv 2]
source [file join [file dirname [info script]] ns2_yang_common.tcl]
yang_setup $seed {*}[lrange $argv 3 end]
set L [$ns node]; set R [$ns node]
$ns duplex-link $L $R 2.5Mb 30ms DropTail
$ns queue-limit $L $R 50
set starts [run_rng $seed]
for {set i 0} {$i < 16} {incr i} {
  set s [$ns node]; set d [$ns node]
  $ns duplex-link $s $L 100Mb 10ms DropTail
  $ns duplex-link $R $d 100Mb 10ms DropTail
  lassign [yang_flow $s $d] src app
  $ns at [$starts uniform 0 2] "$app start"
  if {$i >= 8} { $ns at 200 "$app stop" }
}
set mon [$ns monitor-queue $L $R ""]
set samples {}
proc sample {} {
  global ns mon bin samples simt
  lappend samples [$mon set pkts_]
  if {[$ns now] + $bin < $simt + 1e-9} { $ns at [expr [$ns now] + $bin] "sample" }
}
proc finish {} {
  global samples
  puts [format "{\"sim\":\"ns-2.35\",\"queue_pkts\":\[%s\]}" [join $samples ,]]
  exit 0
}
$ns at $bin "sample"
$ns at [expr $simt + $bin / 2] "finish"
$ns run
