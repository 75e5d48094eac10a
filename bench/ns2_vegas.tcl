# ns-2.35 counterpart of vegas-equilibrium (python/ccscope/experiments/vegas.py), for
# bench/ns2_compare_vegas.py. Agent/TCP/Vegas is tcp-vegas.cc: once per RTT, Diff =
# (Expected - Actual) x BaseRTT rounded to whole packets; -1 packet above v_beta_, +1 a round
# below v_alpha_; slow start ends above v_gamma_. 1000-byte payloads: 1000 bytes on the wire for Vegas
# (its output() adds no headersize()), 1040 for Reno.
#
# usage: ns ns2_vegas.tcl equilibrium N SEED [START_S ...]
#   scenarios/vegas-equilibrium.toml: N Vegas(2,4) flows, 10 Mb/s 10 ms bottleneck with a
#   300-packet DropTail buffer, 100 Mb/s 5 ms access links, starts uniform in [0, 10] ms (or
#   flow i at the i-th START_S), 60 s measured after 20 s.
# usage: ns ns2_vegas.tcl rtt-bias Vegas|Reno SEED
#   scenarios/vegas-rtt-bias.toml: two flows, round trips 20 and 100 ms (access delays 2.5 and
#   22.5 ms each way, 1 Gb/s), 10 Mb/s 5 ms bottleneck with 50 packets of DropTail, overhead_
#   1 ms, starts uniform in [0, 100] ms, 120 s measured after 20 s.
# prints one JSON line: the bottleneck's mean queue (packets, time average over the measured
# part) and each flow's payload throughput there (b/s, from its cumulative ACKs).
set mode [lindex $argv 0]; set seed [lindex $argv 2]
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TCP set packetSize_ 1000
Agent/TCP set window_ 10000
Agent/TCP/Vegas set v_alpha_ 2
Agent/TCP/Vegas set v_beta_ 4
Agent/TCP/Vegas set v_gamma_ 1
set L [$ns node]; set R [$ns node]
if {$mode == "equilibrium"} {
  set n [lindex $argv 1]; set agent Vegas
  set warm 20.0; set simt 60.0; set jitter 0.01
  $ns duplex-link $L $R 10Mb 10ms DropTail
  $ns queue-limit $L $R 300
  for {set i 0} {$i < $n} {incr i} { set delay($i) 5ms; set access($i) 100Mb }
} else {
  set n 2; set agent [lindex $argv 1]
  set warm 20.0; set simt 120.0; set jitter 0.1
  Agent/TCP set overhead_ 0.001
  $ns duplex-link $L $R 10Mb 5ms DropTail
  $ns queue-limit $L $R 50
  set delay(0) 2.5ms; set delay(1) 22.5ms; set access(0) 1000Mb; set access(1) 1000Mb
}
set starts [run_rng $seed]
for {set i 0} {$i < $n} {incr i} {
  set src [$ns node]; set dst [$ns node]
  $ns duplex-link $src $L $access($i) $delay($i) DropTail
  $ns duplex-link $R $dst $access($i) $delay($i) DropTail
  set tcp($i) [new Agent/TCP/$agent]
  set sink [new Agent/TCPSink]
  $ns attach-agent $src $tcp($i); $ns attach-agent $dst $sink; $ns connect $tcp($i) $sink
  set ftp [new Application/FTP]; $ftp attach-agent $tcp($i)
  set at [lindex $argv [expr {3 + $i}]]
  $ns at [expr {$at eq "" ? [$starts uniform 0 $jitter] : $at}] "$ftp start"
}
set mon [$ns monitor-queue $L $R ""]
set integ [$mon get-pkts-integrator]
proc mark {} {
  global n tcp integ acked0 area0
  for {set i 0} {$i < $n} {incr i} { set acked0($i) [$tcp($i) set ack_] }
  $integ newpoint [[Simulator instance] now] [$integ set lasty_]
  set area0 [$integ set sum_]
}
proc finish {} {
  global n tcp integ acked0 area0 warm simt
  $integ newpoint $simt [$integ set lasty_]
  set span [expr $simt - $warm]
  set each {}
  for {set i 0} {$i < $n} {incr i} {
    lappend each [format "%.1f" [expr ([$tcp($i) set ack_] - $acked0($i)) * 8000.0 / $span]]
  }
  puts [format "{\"mean_queue_pkts\":%.6f,\"throughput_bps\":\[%s\]}" \
    [expr ([$integ set sum_] - $area0) / $span] [join $each ","]]
  exit 0
}
$ns at $warm "mark"
$ns at $simt "finish"
$ns run
