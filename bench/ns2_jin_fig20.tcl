# ns-2.35 counterpart of Jin et al.'s Fig. 20 parking lot (§6.3; ccscope:
# ccscope.experiments.jin.fig20_scenario, whose comment gives what the paper leaves out and
# what is assumed): hops (b1,b2) at X, (b2,b3) at 3 Mb/s, (b3,b4) at Y, 10 ms each, RED per
# hop as Jin et al.'s Table 4 (limit Q = 2.5 x the BDP at 100 ms in 500-byte packets, thresh_
# 0.15Q, maxthresh_ 0.5Q, q_weight_ 0.002, linterm_ 10 (max_p 0.1), gentle_ and wait_ on,
# counted in packets as ccscope's);
# flow 0 crosses (b1,b2)-(b2,b3), flow 1 (b2,b3)-(b3,b4), each with 15 ms access links on
# both sides, starting at uniform times in [0, 1) s; C1 background flows cross (b1,b2) with
# 5 ms access links and C2 cross (b3,b4) with 1 ms ones, starting in [0, 2) s and stopping at
# 400 s. Access links 1 Gb/s with 10000-packet DropTail queues. Every flow is AGENT with
# packetSize_ 500, window_ 128 and tcpTick_ 0.1 (Table 4).
# AGENT: Sack1 (TCP), or Sack1 with INCREASE DECREASE (increase_num_/decrease_num_: AIMD),
# or Sack1 with INCREASE DECREASE K L (windowOption_ 6, ns-2's binomial controls: w += a/w^k,
# w -= (1 - decrease_num_) w^l).
# usage: ns ns2_jin_fig20.tcl C1 C2 X_MBPS Y_MBPS SIM_S SEED AGENT [INCREASE DECREASE [K L]]
# prints one JSON line: every 100 ms, the two flows' cwnd_ and the RTT a packet sent then
# would see (the propagation and serialization of its path and ACK path plus the queues of its
# two hops then: ns-2's own srtt_ counts whole ticks of 0.1 s).
set c1 [lindex $argv 0]; set c2 [lindex $argv 1]; set x [lindex $argv 2]; set y [lindex $argv 3]
set simt [lindex $argv 4]; set seed [lindex $argv 5]; set agent [lindex $argv 6]
if {$argc > 8} {
  Agent/TCP set increase_num_ [lindex $argv 7]
  Agent/TCP set decrease_num_ [lindex $argv 8]
}
if {$argc > 10} {
  Agent/TCP set windowOption_ 6
  Agent/TCP set k_parameter_ [lindex $argv 9]
  Agent/TCP set l_parameter_ [lindex $argv 10]
}
source [file join [file dirname [info script]] ns2_rng.tcl]
set ns [new Simulator]
seed_run $seed
Agent/TCP set packetSize_ 500
Agent/TCP set window_ 128
Agent/TCP set tcpTick_ 0.1
Queue/RED set bytes_ false
Queue/RED set queue_in_bytes_ false
Queue/RED set q_weight_ 0.002
Queue/RED set linterm_ 10
Queue/RED set gentle_ true
Queue/RED set wait_ true
Queue/RED set mean_pktsize_ 500
for {set i 1} {$i <= 4} {incr i} { set b($i) [$ns node] }
proc hop {from to mbps} {
  global ns
  set q [expr round(2.5 * $mbps * 1e6 * 0.1 / (500 * 8))]
  Queue/RED set thresh_ [expr 0.15 * $q]
  Queue/RED set maxthresh_ [expr 0.5 * $q]
  $ns duplex-link $from $to ${mbps}Mb 10ms RED
  $ns queue-limit $from $to $q
  $ns queue-limit $to $from $q
}
hop $b(1) $b(2) $x
hop $b(2) $b(3) 3
hop $b(3) $b(4) $y
set q0 [$ns monitor-queue $b(1) $b(2) ""]
set q1 [$ns monitor-queue $b(2) $b(3) ""]
set q2 [$ns monitor-queue $b(3) $b(4) ""]
# seconds a queued byte waits at each hop, and each flow's fixed RTT: 2 x (15 + 10 + 10 + 15)
# ms, 540 bytes at its two hops and 40 at theirs back
set wait0 [expr 8.0 / ($x * 1e6)]; set wait1 [expr 8.0 / 3e6]; set wait2 [expr 8.0 / ($y * 1e6)]
set base0 [expr 0.1 + 580 * ($wait0 + $wait1)]
set base1 [expr 0.1 + 580 * ($wait1 + $wait2)]
set k 0
proc flow {from to delay starts stop} {
  global ns agent k
  set s [$ns node]; set r [$ns node]
  $ns duplex-link $s $from 1Gb $delay DropTail
  $ns duplex-link $to $r 1Gb $delay DropTail
  $ns queue-limit $s $from 10000
  $ns queue-limit $to $r 10000
  set src [new Agent/TCP/$agent]; set snk [new Agent/TCPSink/Sack1]
  $ns attach-agent $s $src; $ns attach-agent $r $snk; $ns connect $src $snk
  $src set fid_ [incr k]
  set ftp [new Application/FTP]; $ftp attach-agent $src
  $ns at [$starts value] "$ftp start"
  if {$stop > 0} { $ns at $stop "$ftp stop" }
  return $src
}
set pair [new RandomVariable/Uniform]; $pair set min_ 0; $pair set max_ 1
set back [new RandomVariable/Uniform]; $back set min_ 0; $back set max_ 2
set f0 [flow $b(1) $b(3) 15ms $pair 0]
set f1 [flow $b(2) $b(4) 15ms $pair 0]
for {set i 0} {$i < $c1} {incr i} { flow $b(1) $b(2) 5ms $back 400 }
for {set i 0} {$i < $c2} {incr i} { flow $b(3) $b(4) 1ms $back 400 }
set rows {}
proc sample {} {
  global ns f0 f1 rows simt q0 q1 q2 wait0 wait1 wait2 base0 base1
  set s0 [$q0 set size_]; set s1 [$q1 set size_]; set s2 [$q2 set size_]
  set rtt0 [expr $base0 + $s0 * $wait0 + $s1 * $wait1]
  set rtt1 [expr $base1 + $s1 * $wait1 + $s2 * $wait2]
  lappend rows "\[[$f0 set cwnd_],$rtt0,[$f1 set cwnd_],$rtt1\]"
  if {[$ns now] + 0.1 < $simt + 1e-9} { $ns at [expr [$ns now] + 0.1] "sample" }
}
proc finish {} {
  global rows
  puts [format "{\"sim\":\"ns-2.35\",\"interval_s\":0.1,\"cwnd_rtt\":\[%s\]}" [join $rows ,]]
  exit 0
}
$ns at 0.1 "sample"
$ns at [expr $simt + 0.05] "finish"
$ns run
